import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as review from '../../shared/routes/review.js';
import { presentJob } from '../../shared/services/review/job-views.js';
import { reviewerQueue } from '../../shared/services/review/reviewer-queue.js';

export const handler = defineHandler(review.reviewQueue, async ({ deps, principal, query }) => {
  const { jobs, total } = await reviewerQueue(deps, principal, query.page, query.pageSize);
  return ok({
    data: jobs.map(presentJob),
    pagination: {
      page: query.page,
      pageSize: query.pageSize,
      total,
      totalPages: Math.ceil(total / query.pageSize),
    },
  });
});
