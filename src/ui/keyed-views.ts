/**
 * Views of a list, one per key, built once and updated in place on every poll (so focus inside one
 * survives); a view whose key is gone from the list leaves the page. The client list's cards and a
 * card's window gauges are kept this way.
 */
export class KeyedViews<View extends { readonly root: HTMLElement }> {
  private readonly views = new Map<string, View>();
  /** The keys asked for since the last `removeUnseen()`. */
  private readonly seen = new Set<string>();

  /** `create` builds the view of a new key (and may place it on the page). */
  constructor(private readonly create: () => View) {}

  /** The view of `key`, built when new, kept by the next `removeUnseen()`. */
  view(key: string): View {
    this.seen.add(key);
    let view = this.views.get(key);
    if (view === undefined) {
      view = this.create();
      this.views.set(key, view);
    }
    return view;
  }

  /** Removes the views whose key `view()` was not asked for since the last call. */
  removeUnseen(): void {
    for (const [key, view] of this.views) {
      if (!this.seen.has(key)) {
        view.root.remove();
        this.views.delete(key);
      }
    }
    this.seen.clear();
  }
}
