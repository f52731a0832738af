/** The media type of a Stowage envelope in HTTP (`Content-Type` and `Accept`). */
export const STOWAGE_MEDIA_TYPE = 'application/vnd.stowage'
