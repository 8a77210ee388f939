/**
 * English, the source catalog: every text of the web app (`app`) and of what the server writes
 * to a person (`server`: notifications, e-mails, system messages). Other languages translate
 * these keys (catalogs.test.ts checks they are complete). Values use i18next's syntax:
 * `{{name}}` is a value, and a key with `_one`/`_other` (Russian: `_one`/`_few`/`_many`/`_other`)
 * is chosen by `count` through Intl.PluralRules; `{{count, number}}` formats through
 * Intl.NumberFormat. Keys are grouped by the screen or component that shows them.
 */
const en = {
  app: {
    common: {
      cancel: "Cancel",
      save: "Save",
      loading: "Loading…",
    },
    settings: {
      language: "Language",
    },
  },
  server: {
    mail: {
      verify: {
        subject: "Confirm your e-mail address",
        text: "Your confirmation code is {{code}}.\n\nOr open this link: {{link}}\n\nThe code and the link work for 24 hours. If you did not sign up, ignore this message.\n",
      },
      signUpAttempt: {
        subject: "Someone tried to sign up with your address",
        text: "Someone tried to create a new account with this e-mail address, which already has an account here.\n\nIf it was you, sign in at {{signIn}} or, if you forgot your password, reset it at {{reset}}\n\nIf it was not you, ignore this message; nothing has changed.\n",
      },
      passwordReset: {
        subject: "Reset your password",
        text: "To choose a new password, open this link within an hour:\n{{link}}\n\nIf you did not ask for this, ignore this message; your password stays as it is.\n",
      },
      signInCode: {
        subject: "Your sign-in code: {{code}}",
        text: "Your sign-in code is {{code}}. It works for 10 minutes.\n\nIf you did not try to sign in, change your password.\n",
      },
      digest: {
        subject: "{{instance}}: {{summary}} while you were away",
        intro: "While you were away (since {{since, datetime}}): {{summary}}.",
        messagesInChats: "{{messages}} {{chats}}",
        both: "{{first}} and {{second}}",
        unreadMessages_one: "{{count, number}} unread message",
        unreadMessages_other: "{{count, number}} unread messages",
        inChats_one: "in {{count, number}} chat",
        inChats_other: "in {{count, number}} chats",
        mentions_one: "{{count, number}} mention",
        mentions_other: "{{count, number}} mentions",
        messagesHeading: "Messages",
        chatMessages_one: "{{chat}}: {{count, number}} message",
        chatMessages_other: "{{chat}}: {{count, number}} messages",
        chatMessagesFrom_one: "{{chat}}: {{count, number}} message from {{senders}}",
        chatMessagesFrom_other: "{{chat}}: {{count, number}} messages from {{senders}}",
        moreChats_one: "and {{count, number}} more chat",
        moreChats_other: "and {{count, number}} more chats",
        attachment: "(an attachment)",
        readThem: "Read them: {{link}}",
        mentionsHeading: "Mentions",
        moreMentions_one: "and {{count, number}} more mention",
        moreMentions_other: "and {{count, number}} more mentions",
        seeThem: "See them: {{link}}",
        why: 'You get this mail once each time you have been away for a while, because "E-mail digest when away" is on in your notification settings.',
        stop: "To stop these mails, switch it off at {{link}}",
      },
    },
    push: {
      group: "Group",
      gathered_one: "{{title}} ({{count, number}} new message)",
      gathered_other: "{{title}} ({{count, number}} new messages)",
      gatheredAtLeast: "{{title}} ({{count, number}}+ new messages)",
      mention: "mentioned you",
      comment: "commented on your post",
      reply: "replied to your comment",
      follow: "followed you",
      like: "liked your post",
      repost: "reposted your post",
      reacted: "reacted {{emoji}} to your message: {{glance}}",
      botPaidTitle: "@{{bot}} was paid",
      botPaid: "{{payer}} paid {{amount, number}} ⭐",
      gift: "gave you {{amount, number}} ⭐",
    },
    glance: {
      invoice: "Invoice",
      photo: "Photo",
      video: "Video",
      animation: "GIF",
      audio: "Audio",
      voice: "Voice message",
      video_note: "Video message",
      sticker: "Sticker",
      document: "File",
      attachment: "Attachment",
      poll: "Poll",
      location: "Location",
      contact: "Contact",
      dice: "Dice",
      message: "Message",
    },
    chat: {
      group_created: '{{actor}} created the group "{{title}}"',
      member_added: "{{actor}} added {{user}}",
      member_removed: "{{actor}} removed {{user}}",
      member_left: "{{user}} left the group",
      member_joined: "{{user}} joined by invite link",
      title_changed: '{{actor}} renamed the group to "{{title}}"',
      photo_changed: "{{actor}} changed the group photo",
      photo_removed: "{{actor}} removed the group photo",
      payment: '{{payer}} paid {{amount, number}} ⭐ to {{bot}} for "{{title}}"',
      refund: '{{amount, number}} ⭐ for "{{title}}" were refunded',
      signInCode: "Your sign-in code: {{code}}",
    },
  },
};

export default en;
export type Catalog = typeof en;
