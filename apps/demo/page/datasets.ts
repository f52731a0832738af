// The objects the demo serves, by name, with the label people read: shared by the server
// (src/server.ts, which makes them) and the page, so the page names them even when the server is
// unreachable.

/** Each object's name (its URL is /api/data/<name>) and label, in the order the page lists them. */
export const DATASET_LABELS = {
  // The seed article's arrays: perfectly regular rows, Stowage's best case (labelled as such).
  'items-100': 'seed array, 100 items (best case)',
  'items-1000': 'seed array, 1,000 items (best case)',
  'items-100000': 'seed array, 100,000 items (best case)',
  post: 'blog post with 40 comments',
  countries: 'world-countries, 250 countries (real data)',
  session: 'user session',
} as const

/** The name of an object the demo serves. */
export type DatasetName = keyof typeof DATASET_LABELS
