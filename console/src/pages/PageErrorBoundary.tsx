import { Component, type ReactNode } from 'react';
import { describeError } from '../app/api';
import { ErrorMessage, Page } from '../app/ui';

/**
 * A page that fails while rendering (a bug, or a chunk that no longer loads after a deployment) shows what
 * happened in words, inside the console's frame, instead of unmounting the whole console into a blank page.
 * Each route has its own boundary, so moving to another page leaves the failure behind.
 */
export class PageErrorBoundary extends Component<{ children: ReactNode }, { error: unknown }> {
  override state: { error: unknown } = { error: undefined };

  static getDerivedStateFromError(error: unknown): { error: unknown } {
    return { error };
  }

  override render(): ReactNode {
    if (this.state.error === undefined) return this.props.children;
    return (
      <Page title="This page could not be shown">
        <ErrorMessage
          error={`${describeError(this.state.error)} Reload the page to try again; the other pages still work.`}
        />
      </Page>
    );
  }
}
