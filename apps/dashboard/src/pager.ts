/**
 * Cursor paging: the server gives only a `next_cursor`, so the way back is a stack of the cursors
 * of the pages already seen.
 */
export class CursorPager {
  private readonly previous: (string | null)[] = [];
  private currentCursor: string | null = null;

  /** The cursor to ask for the page shown now; null for the first page. */
  get cursor(): string | null {
    return this.currentCursor;
  }

  /** 1-based number of the page shown now. */
  get pageNumber(): number {
    return this.previous.length + 1;
  }

  get onFirstPage(): boolean {
    return this.previous.length === 0;
  }

  /** Moves to the page after the current one, whose cursor the server sent as `next_cursor`. */
  forward(nextCursor: string): void {
    this.previous.push(this.currentCursor);
    this.currentCursor = nextCursor;
  }

  /** Moves back one page; false when already on the first. */
  back(): boolean {
    if (this.previous.length === 0) return false;
    this.currentCursor = this.previous.pop() ?? null;
    return true;
  }

  /** Back to the first page (a new filter). */
  reset(): void {
    this.previous.length = 0;
    this.currentCursor = null;
  }
}
