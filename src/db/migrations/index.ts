import type { GuardedMigration } from "../schema-guard";
import * as m20261122000100 from "./20261122000100_users_sessions";
import * as m20261122000201 from "./20261122000201_auth";
import * as m20261122000400 from "./20261122000400_people";
import * as m20261122060100 from "./20261122060100_chats";
import * as m20261122000700 from "./20261122000700_bots";
import * as m20261122000701 from "./20261122000701_bot_presses";
import * as m20261122000500 from "./20261122000500_uploads";
import * as m20261122000300 from "./20261122000300_posts";
import * as m20261122000900 from "./20261122000900_stars";
import * as m20261122001400 from "./20261122001400_cleanup_indexes";
import * as m20261124000100 from "./20261124000100_bot_api_ids";
import * as m20261124000200 from "./20261124000200_admin_audit";
import * as m20261124071000 from "./20261124071000_bot_profile_variants";
import * as m20261124071001 from "./20261124071001_member_promoted_by";
import * as m20261124073000 from "./20261124073000_qr_device";
import * as m20261124100000 from "./20261124100000_counters";
import * as m20261124100100 from "./20261124100100_unread_counter";
import * as m20261124113000 from "./20261124113000_message_poll_votes";
import * as m20261124113100 from "./20261124113100_group_description";
import * as m20261124190000 from "./20261124190000_comment_counters";
import * as m20261124193000 from "./20261124193000_feed_entries";
import * as m20261124194000 from "./20261124194000_chat_member_count";
import * as m20261124194100 from "./20261124194100_message_version";
import * as m20261124194200 from "./20261124194200_user_profile_version";
import * as m20261124214000 from "./20261124214000_chat_list_versions";
import * as m20261124214100 from "./20261124214100_chat_last_message";
import * as m20261124215000 from "./20261124215000_post_version";
import * as m20261124215100 from "./20261124215100_comment_version";
import * as m20261124215200 from "./20261124215200_user_posts_count";
import * as m20261125001000 from "./20261125001000_send_read_mark";
import * as m20261125002000 from "./20261125002000_chat_member_activity";
import * as m20261125002100 from "./20261125002100_chat_list_last_message_version";
import * as m20261125004000 from "./20261125004000_profile_version_shown";
import * as m20261125010000 from "./20261125010000_send_member_activity";
import * as m20261125030000 from "./20261125030000_send_seq_in_insert";
import * as m20261125031000 from "./20261125031000_chat_member_role_version";
import * as m20261125032000 from "./20261125032000_feed_entries_own_posts";
import * as m20261125033000 from "./20261125033000_comment_threads";
import * as m20261125040000 from "./20261125040000_send_one_trigger";
import * as m20261125042000 from "./20261125042000_marks_by_account";
import * as m20261128100000 from "./20261128100000_reports";
import * as m20261128110000 from "./20261128110000_bots_write_first";
import * as m20261128120000 from "./20261128120000_invites_and_captcha_question";
import * as m20261128140000 from "./20261128140000_uploads_released";
import * as m20261128140100 from "./20261128140100_invite_maker";
import * as m20261128150000 from "./20261128150000_upload_content_hash";
import * as m20261128180000 from "./20261128180000_star_invoice_links";
import * as m20261128190000 from "./20261128190000_schema_guard";
import * as m20261128200000 from "./20261128200000_live_settings";
import * as m20261129010000 from "./20261129010000_jobs";
import * as m20261129010100 from "./20261129010100_node_readiness";
import * as m20261129020000 from "./20261129020000_push";
import * as m20261129040000 from "./20261129040000_messages_fts";
import * as m20261129040100 from "./20261129040100_prefix_search";
import * as m20261129050000 from "./20261129050000_notification_groups";
import * as m20261129050100 from "./20261129050100_list_indexes";
import * as m20261129070000 from "./20261129070000_media_renditions";
import * as m20261129080000 from "./20261129080000_forwarded_for_sighting";
import * as m20261129100000 from "./20261129100000_email_digest";
import * as m20261129100100 from "./20261129100100_story_renditions";
import * as m20261129110000 from "./20261129110000_link_previews";
import * as m20261129130000 from "./20261129130000_notifications_seen";
import * as m20261129150000 from "./20261129150000_messages_fts_trailing";
import * as m20261130100000 from "./20261130100000_cache_stamps";
import * as m20261130200000 from "./20261130200000_people_prefix_index";
import * as m20261130300000 from "./20261130300000_user_language";
import * as m20261130300100 from "./20261130300100_cache_stamps_language";
import * as m20261201100000 from "./20261201100000_chat_list_stamps";
import * as m20261201200000 from "./20261201200000_feed_pages_stamp";
import * as m20261202100000 from "./20261202100000_messages_fts_queue";
import * as m20261203100000 from "./20261203100000_messages_search_database";
import * as m20261204100000 from "./20261204100000_notification_unseen_count";
import * as m20261204100100 from "./20261204100100_reacted_message_versions";
import * as m20261205100000 from "./20261205100000_read_mark_forward";
import * as m20261205100100 from "./20261205100100_follow_pages_stamp";
import * as m20261205100200 from "./20261205100200_feed_pages_stamp_hashtags";
import * as m20261205100300 from "./20261205100300_notification_pages_version";
import * as m20261205100400 from "./20261205100400_chat_history_version";
import * as m20261207100000 from "./20261207100000_send_one_member_update";
import * as m20261208100000 from "./20261208100000_send_statement_triggers";
import * as m20261208100100 from "./20261208100100_message_lexemes_inlined";

/**
 * Every migration, imported statically: a compiled binary has no migrations folder to read.
 * Names are YYYYMMDDHHMMSS_name; add one line per new migration, never edit an old one.
 */
export const migrations: Record<string, GuardedMigration> = {
  "20261122000100_users_sessions": m20261122000100,
  "20261122000201_auth": m20261122000201,
  "20261122000400_people": m20261122000400,
  "20261122060100_chats": m20261122060100,
  "20261122000700_bots": m20261122000700,
  "20261122000701_bot_presses": m20261122000701,
  "20261122000500_uploads": m20261122000500,
  "20261122000300_posts": m20261122000300,
  "20261122000900_stars": m20261122000900,
  "20261122001400_cleanup_indexes": m20261122001400,
  "20261124000100_bot_api_ids": m20261124000100,
  "20261124000200_admin_audit": m20261124000200,
  "20261124071000_bot_profile_variants": m20261124071000,
  "20261124071001_member_promoted_by": m20261124071001,
  "20261124073000_qr_device": m20261124073000,
  "20261124100000_counters": m20261124100000,
  "20261124100100_unread_counter": m20261124100100,
  "20261124113000_message_poll_votes": m20261124113000,
  "20261124113100_group_description": m20261124113100,
  "20261124190000_comment_counters": m20261124190000,
  "20261124193000_feed_entries": m20261124193000,
  "20261124194000_chat_member_count": m20261124194000,
  "20261124194100_message_version": m20261124194100,
  "20261124194200_user_profile_version": m20261124194200,
  "20261124214000_chat_list_versions": m20261124214000,
  "20261124214100_chat_last_message": m20261124214100,
  "20261124215000_post_version": m20261124215000,
  "20261124215100_comment_version": m20261124215100,
  "20261124215200_user_posts_count": m20261124215200,
  "20261125001000_send_read_mark": m20261125001000,
  "20261125002000_chat_member_activity": m20261125002000,
  "20261125002100_chat_list_last_message_version": m20261125002100,
  "20261125004000_profile_version_shown": m20261125004000,
  "20261125010000_send_member_activity": m20261125010000,
  "20261125030000_send_seq_in_insert": m20261125030000,
  "20261125031000_chat_member_role_version": m20261125031000,
  "20261125032000_feed_entries_own_posts": m20261125032000,
  "20261125033000_comment_threads": m20261125033000,
  "20261125040000_send_one_trigger": m20261125040000,
  "20261125042000_marks_by_account": m20261125042000,
  "20261128100000_reports": m20261128100000,
  "20261128110000_bots_write_first": m20261128110000,
  "20261128120000_invites_and_captcha_question": m20261128120000,
  "20261128140000_uploads_released": m20261128140000,
  "20261128140100_invite_maker": m20261128140100,
  "20261128150000_upload_content_hash": m20261128150000,
  "20261128180000_star_invoice_links": m20261128180000,
  "20261128190000_schema_guard": m20261128190000,
  "20261128200000_live_settings": m20261128200000,
  "20261129010000_jobs": m20261129010000,
  "20261129010100_node_readiness": m20261129010100,
  "20261129020000_push": m20261129020000,
  "20261129040000_messages_fts": m20261129040000,
  "20261129040100_prefix_search": m20261129040100,
  "20261129050000_notification_groups": m20261129050000,
  "20261129050100_list_indexes": m20261129050100,
  "20261129070000_media_renditions": m20261129070000,
  "20261129080000_forwarded_for_sighting": m20261129080000,
  "20261129100000_email_digest": m20261129100000,
  "20261129100100_story_renditions": m20261129100100,
  "20261129110000_link_previews": m20261129110000,
  "20261129130000_notifications_seen": m20261129130000,
  "20261129150000_messages_fts_trailing": m20261129150000,
  "20261130100000_cache_stamps": m20261130100000,
  "20261130200000_people_prefix_index": m20261130200000,
  "20261130300000_user_language": m20261130300000,
  "20261130300100_cache_stamps_language": m20261130300100,
  "20261201100000_chat_list_stamps": m20261201100000,
  "20261201200000_feed_pages_stamp": m20261201200000,
  "20261202100000_messages_fts_queue": m20261202100000,
  "20261203100000_messages_search_database": m20261203100000,
  "20261204100000_notification_unseen_count": m20261204100000,
  "20261204100100_reacted_message_versions": m20261204100100,
  "20261205100000_read_mark_forward": m20261205100000,
  "20261205100100_follow_pages_stamp": m20261205100100,
  "20261205100200_feed_pages_stamp_hashtags": m20261205100200,
  "20261205100300_notification_pages_version": m20261205100300,
  "20261205100400_chat_history_version": m20261205100400,
  "20261207100000_send_one_member_update": m20261207100000,
  "20261208100000_send_statement_triggers": m20261208100000,
  "20261208100100_message_lexemes_inlined": m20261208100100,
};
