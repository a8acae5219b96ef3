import type { OperatorOverview } from '@cryptocheckout/core';
import type { OperatorApi } from '../api.js';
import type { ElementBuilder } from '../dom.js';
import type { Route } from '../router.js';

/** Choices that outlive one view, for as long as the tab is open. */
export interface Preferences {
  autoRefresh: boolean;
}

/** Intervals of the live parts, shortened in tests. */
export interface Timing {
  /** Auto-refresh of the list's first page. */
  refreshMs: number;
  /** Re-fetching a transaction after a webhook resend … */
  followUpMs: number;
  /** … for this long. */
  followUpForMs: number;
}

/** What every signed-in view gets from the app. */
export interface ViewContext {
  doc: Document;
  win: Window & typeof globalThis;
  h: ElementBuilder;
  api: OperatorApi;
  overview: OperatorOverview;
  preferences: Preferences;
  timing: Timing;
  /** Hash of the transactions list last shown, so a detail page leads back to the same filter. */
  listHash: string;
  /** Hash of the refunds list last shown, so a refund's page leads back to the same filter. */
  refundsHash: string;
  navigate(route: Route): void;
  /** Reports a failed call: 401 ends the session, cancelled calls are dropped, the rest is shown in the alert. */
  fail(error: unknown): void;
  /** Empties the alert once the view has loaded without error. */
  clearAlert(): void;
}

/** A mounted view. */
export interface View {
  element: HTMLElement;
  /** The view's h1, focused when the route changes. */
  heading: HTMLElement;
  /**
   * Takes a new route of the same view in place (a new filter) and returns true, so focus and the
   * form stay where they are; false (or absent) when the view must be replaced.
   */
  update?(route: Route): boolean;
  /** Stops timers and requests; the element is discarded afterwards. */
  destroy(): void;
}
