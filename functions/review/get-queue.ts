import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as review from '../../shared/routes/review.js';
import { pageOf } from '../../shared/services/pages.js';
import { presentJob } from '../../shared/services/review/job-views.js';
import { reviewerQueue } from '../../shared/services/review/reviewer-queue.js';

export const handler = defineHandler(review.reviewQueue, async ({ deps, principal, query }) => {
  const { jobs, total } = await reviewerQueue(deps, principal, query.page, query.pageSize);
  // The queue is the reviewer's active job and the open escalations: bounded by open work, not by history, so
  // it is paged by number only (no cursor; nextCursor is always null).
  return ok(pageOf(jobs.map(presentJob), query.page, query.pageSize, total));
});
