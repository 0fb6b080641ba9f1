// Timestamps are coarse, so a folder (or file) seen too soon after its last change is not
// trusted and is looked at again next time, as git does with "racily clean" index entries: too
// soon is RACY_FINE_MS where timestamps have sub-second precision (the kernel's clock tick is at
// most 10 ms), and RACY_MS where they look like whole seconds (ext3, HFS+, FAT's 2 s).

export const RACY_MS = 2000;
export const RACY_FINE_MS = 100;

/** A folder or file looked at long enough after its last change can be trusted unchanged while its stat is. */
export const trusted = (mtime: number, checkedAt: number) => checkedAt - mtime > (mtime % 1000 === 0 ? RACY_MS : RACY_FINE_MS);

/**
 * A folder as recorded still the one on disk, and recorded long enough after its last change to
 * be trusted: a quick look may then take its listing as recorded (refresh, its quick check, the
 * settled reads without the Store, local flattening).
 */
export const folderCurrent = (rec: { mtime: number; checked_at: number } | undefined, mtime: number | null) =>
  rec !== undefined && rec.mtime === mtime && trusted(rec.mtime, rec.checked_at);
