/**
 * What counts as an @mention or a #hashtag, shared by the server (which links and notifies
 * them) and the web app (which suggests them while a person types). Pieces of regular
 * expressions, for the `u` flag.
 */

/** A character of a username: ASCII letters, digits and _. */
export const USERNAME_CHAR = "[A-Za-z0-9_]";
/** A character of a hashtag: a letter or digit of any script, or _. */
export const HASHTAG_CHAR = "[\\p{L}\\p{N}_]";
/**
 * What may stand right before the @ of a mention: not a word character and not another @,
 * so an e-mail address is not taken for a mention.
 */
export const BEFORE_MENTION = "[^\\p{L}\\p{N}_@]";
/** What may stand right before the # of a hashtag: not a word character, nor #, & or / (URL fragments, entities). */
export const BEFORE_HASHTAG = "[^\\p{L}\\p{N}_#&/]";
