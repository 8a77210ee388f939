/** One row per cache kept by stamp: its stamp, raised by triggers on writes to its sources (src/cache/stamps.ts). */
export interface CacheStampsTable {
  name: string;
  stamp: number;
}

/** One row per account that has had a chat: its chat list's stamp, raised by triggers (the chat_list_stamps migration). */
export interface ChatListStampsTable {
  user_id: number;
  stamp: number;
}

export interface CacheTables {
  cache_stamps: CacheStampsTable;
  chat_list_stamps: ChatListStampsTable;
}
