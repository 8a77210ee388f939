import type { ErrorCatalog } from "./error-catalog";

/**
 * The server's error texts in Russian (error-wording.ts): each English text as the code raises
 * it, and its Russian. A field's text stands beside the field's label or after it and a colon,
 * so it names no gender ("не подходит", not "неверный").
 */
export default {
  // requests and the service
  "Invalid request": "Запрос не прошёл проверку",
  "Not found": "Не найдено",
  Forbidden: "Нет доступа",
  Unauthorized: "Нужно войти",
  "Internal server error": "Внутренняя ошибка сервера",
  "Service temporarily unavailable; retry later": "Сервис временно недоступен; попробуйте позже",
  "Too many requests": "Слишком много запросов",
  "Missing or invalid CSRF token": "Нет CSRF-токена или он неверен",
  "Request body is not valid JSON": "Тело запроса — не JSON",
  "Request body is not valid JSON or form data": "Тело запроса — не JSON и не данные формы",
  "Request body is too large": "Тело запроса слишком большое",
  "A request body needs a Content-Length": "У тела запроса должен быть заголовок Content-Length",
  "needs a Content-Length header": "нужен заголовок Content-Length",
  "could not be parsed": "не удалось разобрать",
  "is too large": "слишком большое",
  "is larger than {{max}} bytes": "больше {{max}} байт",
  "is not a valid cursor": "не курсор этого списка",
  "WebSocket connections from other sites are refused": "Подключения WebSocket с других сайтов не принимаются",
  "the operator log is served to loopback clients only": "журнал оператора доступен только с этой же машины",
  "The search took too long; try more or longer words": "Поиск занял слишком много времени; уточните запрос",
  "Image processing is unavailable on this server (sharp failed to load)":
    "Обработка изображений на этом сервере недоступна (sharp не загрузился)",

  // a field's value, as the schema checks it
  "is required": "обязательно",
  "is invalid": "не подходит",
  "is not a field of this request": "такого поля в запросе нет",
  "is not a valid value": "недопустимое значение",
  "is not in the expected format": "не в том формате",
  "must be text": "должно быть текстом",
  "must be a string": "должно быть текстом",
  "must be a number": "должно быть числом",
  "must be a whole number": "должно быть целым числом",
  "must be true or false": "должно быть true или false",
  "must be true, false, 1 or 0": "должно быть true, false, 1 или 0",
  "must be an array": "должно быть списком",
  "must be an object": "должно быть объектом",
  "must be null": "должно быть null",
  "must be an e-mail address": "должно быть адресом e-mail",
  "must be exactly {{value}}": "должно быть ровно {{value}}",
  "must be one of {{values}}": "должно быть одним из: {{values}}",
  "must be at most {{max}}": "не больше {{max}}",
  "must be at least {{min}}": "не меньше {{min}}",
  "must be less than {{max}}": "меньше {{max}}",
  "must be more than {{min}}": "больше {{min}}",
  "must be at most {{max}} characters": {
    count: "max",
    one: "не длиннее {{max}} символа",
    few: "не длиннее {{max}} символов",
    many: "не длиннее {{max}} символов",
    other: "не длиннее {{max}} символа",
  },
  "must be at least {{min}} characters": {
    count: "min",
    one: "не короче {{min}} символа",
    few: "не короче {{min}} символов",
    many: "не короче {{min}} символов",
    other: "не короче {{min}} символа",
  },
  "must be 1 to {{max}} characters": {
    count: "max",
    one: "от 1 до {{max}} символа",
    few: "от 1 до {{max}} символов",
    many: "от 1 до {{max}} символов",
    other: "от 1 до {{max}} символа",
  },
  "must be 1 to 64 characters": "от 1 до 64 символов",
  "must be 1 to 64 characters of A-Z, a-z, 0-9, _ and -": "от 1 до 64 символов: A–Z, a–z, 0–9, _ и -",
  "must have at most {{max}} items": {
    count: "max",
    one: "не больше {{max}} элемента",
    few: "не больше {{max}} элементов",
    many: "не больше {{max}} элементов",
    other: "не больше {{max}} элемента",
  },
  "must have at least {{min}} items": {
    count: "min",
    one: "не меньше {{min}} элемента",
    few: "не меньше {{min}} элементов",
    many: "не меньше {{min}} элементов",
    other: "не меньше {{min}} элемента",
  },
  "must not repeat an item": "не должно повторяться",
  "must not be empty": "не может быть пустым",
  "is not valid JSON": "не JSON",
  "must be a JSON object": "должно быть объектом JSON",
  "is empty": "пусто",
  "is too long": "слишком длинное",
  "must be a positive integer": "должно быть целым числом больше нуля",
  "must be a non-negative integer": "должно быть целым числом от нуля",
  "must be an integer from 1 to {{max}}": "должно быть целым числом от 1 до {{max}}",
  "must be a whole number from 1 to {{max}}": "должно быть целым числом от 1 до {{max}}",
  "must be an integer from {{min}} to {{max}}": "должно быть целым числом от {{min}} до {{max}}",
  "must be a link": "должно быть ссылкой",
  "must be an http or https link": "должно быть ссылкой http или https",
  "must be a single emoji": "должно быть одним эмодзи",
  "cannot be combined with before": "нельзя указывать вместе с before",
  "cannot be combined with before or after": "нельзя указывать вместе с before или after",

  // accounts, sign-in and sign-up
  "must be 3 to 32 characters of letters, digits and _": "от 3 до 32 символов: латинские буквы, цифры и _",
  "a bot username must end with _bot": "имя бота должно оканчиваться на _bot",
  "only bots have usernames ending with _bot": "на _bot оканчиваются только имена ботов",
  "must be a valid e-mail address": "должно быть адресом e-mail",
  "is already registered": "уже зарегистрирован",
  "Wrong e-mail or password": "Неверный e-mail или пароль",
  "This account is disabled": "Эта учётная запись отключена",
  "This device is banned": "Это устройство заблокировано",
  "Confirm your e-mail address first": "Сначала подтвердите адрес e-mail",
  "confirm your e-mail address first": "сначала подтвердите адрес e-mail",
  "Too many wrong passwords for this account: password sign-in is paused for a while":
    "Слишком много неверных паролей для этой учётной записи: вход по паролю на время приостановлен",
  "Registration is closed on this instance": "Регистрация на этом сервере закрыта",
  "This instance takes new accounts by invitation: send inviteCode":
    "На этом сервере регистрируются по приглашениям: укажите inviteCode",
  "Solve the captcha (GET /api/auth/captcha) and send captchaId and captchaAnswer":
    "Решите капчу (GET /api/auth/captcha) и отправьте captchaId и captchaAnswer",
  "The captcha answer is wrong or expired; get a new captcha":
    "Ответ на капчу неверен или устарел; получите новую капчу",
  "must be true: read the instance's rules (GET /api/instance) and accept them":
    "должно быть true: прочитайте правила сервера (GET /api/instance) и примите их",
  "This invite code is not valid; check it or ask for a new one":
    "Код приглашения не подходит; проверьте его или попросите новый",
  "This invite has been used as many times as it allows": "Это приглашение уже использовано столько раз, сколько можно",
  "This invite has expired; ask whoever invited you for a new one":
    "Срок приглашения истёк; попросите у пригласившего новое",
  "No such invite": "Такого приглашения нет",
  "is taken": "уже занято",
  "is reserved": "зарезервировано",
  "is incorrect": "не подходит",
  "is wrong": "не подходит",
  "has expired": "устарел",
  "was already used": "уже использован",
  "was refused": "отклонён",
  "is not approved yet": "ещё не подтверждён",
  "is invalid, used or expired": "не подходит, уже использован или устарел",
  "has expired or was used up; ask for a new one (POST /api/auth/email/resend)":
    "устарел или использован; запросите новый (POST /api/auth/email/resend)",
  "Sign in to confirm with a code, or use the link's token":
    "Войдите, чтобы подтвердить кодом, или используйте токен из ссылки",
  "is required (or give the link's token)": "обязательно (или укажите токен из ссылки)",
  "No such QR login": "Такого входа по QR-коду нет",
  "The approving account no longer exists": "Учётной записи, подтвердившей вход, больше нет",
  "No such session": "Такого сеанса нет",
  "must be one of {{languages}}, or null for the instance's default":
    "должно быть одним из: {{languages}}, или null для языка сервера",

  // two-factor sign-in
  "The two-factor code is wrong": "Код двухфакторной защиты не подходит",
  "Enter the code from your authenticator app (twoFactorCode)":
    "Введите код из приложения-аутентификатора (twoFactorCode)",
  "A sign-in code was sent to your chats; repeat with twoFactorCode":
    "Код для входа отправлен в ваши чаты; повторите с twoFactorCode",
  "A sign-in code was sent to your e-mail; repeat with twoFactorCode":
    "Код для входа отправлен на ваш e-mail; повторите с twoFactorCode",
  "is required (or give a two-factor code)": "обязательно (или укажите код двухфакторной защиты)",
  "is required while two-factor protection is on": "обязательно, пока включена двухфакторная защита",
  "set up an authenticator first: POST /api/auth/2fa/totp/setup, then totp/enable":
    "сначала настройте аутентификатор: POST /api/auth/2fa/totp/setup, затем totp/enable",
  "start with POST /api/auth/2fa/totp/setup first": "начните с POST /api/auth/2fa/totp/setup",

  // people
  "User not found": "Пользователь не найден",
  "User {{username}} not found": "Пользователь {{username}} не найден",
  "Unblock this account to follow it": "Чтобы подписаться, сначала разблокируйте эту учётную запись",
  "you cannot follow yourself": "нельзя подписаться на себя",
  "you cannot block yourself": "нельзя заблокировать себя",
  "you cannot mute yourself": "нельзя скрыть себя",
  "is your own: nobody reports themselves": "это вы сами: на себя не жалуются",

  // posts, comments, stories
  "Post not found": "Пост не найден",
  "Comment not found": "Комментарий не найден",
  "Story not found": "История не найдена",
  "Only the author can change this post": "Изменить пост может только автор",
  "Only the author can delete a story": "Удалить историю может только автор",
  "Only the comment's author or the post's author can delete it": "Удалить комментарий может его автор или автор поста",
  "a repost has no content to edit": "у репоста нет текста, который можно изменить",
  "give content, contentWarning, imageUrls, imageAlts or linkPreview to change":
    "укажите, что изменить: content, contentWarning, imageUrls, imageAlts или linkPreview",
  "must not be empty without images or a poll": "не может быть пустым, если нет изображений или опроса",
  "must not be empty without media": "не может быть пустым без вложений",
  "must not have more items than the images": "не может быть больше, чем изображений",
  "must not repeat a file": "файлы не должны повторяться",
  "must be a comment on this post": "должно быть комментарием к этому посту",
  "does not match the upload (a {{type}})": "не совпадает с загруженным файлом ({{type}})",
  "The content contains words not allowed on this instance": "В тексте есть слова, запрещённые на этом сервере",
  "contains a word not allowed on this instance": "есть слово, запрещённое на этом сервере",
  "Posting is blocked until {{until}}": "Публикация заблокирована до {{until}}",

  // polls
  "must have 2 to 12 options": "от 2 до 12 вариантов",
  "each option must be 1 to 100 characters": "каждый вариант — от 1 до 100 символов",
  "options must differ": "варианты не должны повторяться",
  "This post has no poll": "В этом посте нет опроса",
  "This message has no poll": "В этом сообщении нет опроса",
  "This poll is closed": "Этот опрос закрыт",
  "This poll's votes are final": "Голос в этом опросе нельзя изменить",
  "A quiz answer cannot be taken back": "Ответ в викторине нельзя отменить",
  "You have already voted in this poll": "Вы уже проголосовали в этом опросе",
  "You have already voted in this poll; take the vote back first":
    "Вы уже проголосовали в этом опросе; сначала отмените голос",
  "Only the author may close a poll": "Закрыть опрос может только автор",
  "give either optionIds or options": "укажите optionIds или options, что-то одно",
  "must choose at least one option": "выберите хотя бы один вариант",
  "names an option this poll does not have": "такого варианта в опросе нет",
  "must not repeat an option": "варианты не должны повторяться",
  "this poll allows one choice": "в этом опросе можно выбрать только один вариант",
  "this poll takes one answer": "в этом опросе принимается только один ответ",
  "must be option indexes from 0 to {{max}}": "должно быть номерами вариантов от 0 до {{max}}",

  // chats and groups
  "Conversation not found": "Чат не найден",
  "Message not found": "Сообщение не найдено",
  "This is not a group": "Это не группа",
  "is not a group": "не группа",
  "Not a member of this group": "Вы не участник этой группы",
  "is already a member": "уже в группе",
  "This person does not accept messages from you": "Этот человек не принимает от вас сообщения",
  "You cannot message this person": "Вы не можете написать этому человеку",
  "you cannot open a chat with yourself": "нельзя открыть чат с самим собой",
  "{{username}} cannot be added by you": "Вы не можете добавить {{username}}",
  "{{username}} does not accept invitations from you": "{{username}} не принимает от вас приглашения",
  "contains an unknown account": "есть неизвестная учётная запись",
  "unknown accounts: {{usernames}}": "неизвестные учётные записи: {{usernames}}",
  "give rights or role": "укажите rights или role",
  "must have at most {{max}} people": {
    count: "max",
    one: "не больше {{max}} человека",
    few: "не больше {{max}} человек",
    many: "не больше {{max}} человек",
    other: "не больше {{max}} человека",
  },
  "Bots cannot create groups": "Боты не могут создавать группы",
  "A bot can't initiate a conversation with a user": "Бот не может первым начать чат с человеком",
  "Invite link not found or revoked": "Ссылка-приглашение не найдена или отозвана",
  "is not a valid invite code": "не код приглашения",
  "A removed member can return only by invitation link":
    "Удалённый участник может вернуться только по ссылке-приглашению",
  "Your setting of who may message you does not let this group's inviter add you, so you cannot join by this link":
    "Ваша настройка того, кто может вам писать, не разрешает пригласившему добавить вас, поэтому по этой ссылке войти нельзя",
  "use leave to leave the group": "чтобы выйти из группы, используйте leave",
  "Only administrators may add members": "Добавлять участников могут только администраторы",
  "Only administrators may remove members": "Удалять участников могут только администраторы",
  "Only administrators may promote members": "Назначать администраторов могут только администраторы",
  "Only administrators may change the group": "Изменять группу могут только администраторы",
  "Only administrators may create invite links": "Создавать ссылки-приглашения могут только администраторы",
  "Only administrators may pin messages": "Закреплять сообщения могут только администраторы",
  "Only the creator may remove administrators": "Снимать администраторов может только создатель",
  "Only the creator or whoever promoted them may change administrators":
    "Менять права администратора может только создатель или тот, кто его назначил",
  "The creator cannot be removed": "Создателя нельзя удалить",
  "The creator's role cannot be changed": "Роль создателя нельзя изменить",
  "You cannot grant {{right}}": "Вы не можете выдать право {{right}}",
  "you cannot change your own rights": "нельзя менять собственные права",
  "is not a known right": "такого права нет",
  "is not one of {{rights}}": "не одно из: {{rights}}",
  "must be an object of {{rights}} to true or false": "должно быть объектом из {{rights}} со значениями true или false",

  // messages
  "Only the author may edit a message": "Изменить сообщение может только автор",
  "You may delete only your own messages for everyone": "Удалить для всех можно только свои сообщения",
  "This message is protected by its sender: it cannot be forwarded or saved":
    "Отправитель защитил это сообщение: его нельзя переслать или сохранить",
  "this message cannot be forwarded": "это сообщение нельзя переслать",
  "is not a message of this conversation": "не сообщение этого чата",
  "must be a message of this conversation": "должно быть сообщением этого чата",
  "must not have more items than the message's attachments": "не может быть больше, чем вложений в сообщении",
  "nothing to change": "нечего менять",
  "needs type=messages": "нужно type=messages",
  "lies outside the text": "выходит за пределы текста",
  "must be an entity type": "должно быть типом разметки",
  "must be a string of at most 255 characters": "должно быть текстом не длиннее 255 символов",
  "must be an array of at most 1024 numbers": "должно быть списком не длиннее 1024 чисел",
  "is required for text_link": "обязательно для text_link",
  "is not an allowed link ({{link}}): only http, https, tg and ton links are":
    "недопустимая ссылка ({{link}}): разрешены только ссылки http, https, tg и ton",

  // uploads
  "is required: send multipart/form-data with a `file` part and a `kind` field":
    "обязательно: отправьте multipart/form-data с частью `file` и полем `kind`",
  "must be sent once": "должно быть отправлено один раз",
  "the multipart body is malformed: {{reason}}": "тело multipart повреждено: {{reason}}",
  "differs from the kind in the query string": "не совпадает с kind в строке запроса",
  "is not a known upload kind": "неизвестный вид загрузки",
  "is not a readable image ({{reason}})": "не удаётся прочитать изображение ({{reason}})",
  "must be the address of a file you uploaded": "должно быть адресом загруженного вами файла",
  'must be an upload of kind {{kinds}} (this one is "{{kind}}")':
    "должно быть загрузкой вида {{kinds}} (у этой — «{{kind}}»)",
  'must be at most {{size}} ({{bytes}} bytes) for kind "{{kind}}"':
    "для вида «{{kind}}» — не больше {{size}} ({{bytes}} байт)",
  'must be {{classes}} for kind "{{kind}}"; the content is {{mime}}':
    "для вида «{{kind}}» нужно: {{classes}}; а содержимое — {{mime}}",
  'file: larger than the {{limit}} limit of kind "{{kind}}"': "file: больше предела {{limit}} для вида «{{kind}}»",

  // stars and payments
  "Not enough stars: {{balance}} available, {{required}} needed":
    "Недостаточно звёзд: есть {{balance}}, нужно {{required}}",
  "Not enough income: {{balance}} available, {{required}} needed":
    "Недостаточно дохода: есть {{balance}}, нужно {{required}}",
  "You cannot gift stars to this person": "Этому человеку нельзя дарить звёзды",
  "you cannot gift stars to yourself": "нельзя дарить звёзды самому себе",
  "stars belong to people only, not to bots or the system account":
    "звёзды бывают только у людей, не у ботов и не у системной учётной записи",
  "there is no withdrawable income yet": "дохода, который можно вывести, пока нет",
  "Invoice not found": "Счёт не найден",
  "is not an invoice": "не счёт",
  "This invoice has already been paid": "Этот счёт уже оплачен",
  "A payment of this invoice is already in progress": "Оплата этого счёта уже идёт",
  "This bot cannot take payments now": "Этот бот сейчас не принимает оплату",
  "Bots cannot pay invoices": "Боты не могут оплачивать счета",
  "CURRENCY_INVALID: only XTR (stars) is accepted": "CURRENCY_INVALID: принимаются только XTR (звёзды)",
  "CURRENCY_TOTAL_AMOUNT_INVALID: the total must be 1 to {{max}} stars":
    "CURRENCY_TOTAL_AMOUNT_INVALID: сумма должна быть от 1 до {{max}} звёзд",
  "PAYMENT_PROVIDER_INVALID: payments are in stars only, without providers":
    "PAYMENT_PROVIDER_INVALID: оплата только звёздами, без платёжных систем",
  "prices must be an Array of LabeledPrice": "prices должно быть массивом LabeledPrice",
  "prices must be non-empty": "prices не может быть пустым",
  "prices[{{i}}] must be a LabeledPrice object": "prices[{{i}}] должно быть объектом LabeledPrice",
  "prices[{{i}}].amount must be a positive Integer number of stars":
    "prices[{{i}}].amount должно быть целым положительным числом звёзд",
  "prices[{{i}}].label is empty": "prices[{{i}}].label пусто",
  "prices[{{i}}].label is too long (maximum {{max}})": "prices[{{i}}].label слишком длинное (не больше {{max}})",
  "too many prices (maximum {{max}})": "слишком много цен (не больше {{max}})",

  // bots
  "Bot not found": "Бот не найден",
  "Bot {{username}} not found": "Бот {{username}} не найден",
  "Owner not found": "Владелец не найден",
  'must be "all" or "commands"': "должно быть «all» или «commands»",
  "Bots cannot own bots": "Боты не могут владеть ботами",
  "a bot cannot own bots": "бот не может владеть ботами",
  "you can own at most {{max}} bots": {
    count: "max",
    one: "у вас может быть не больше {{max}} бота",
    few: "у вас может быть не больше {{max}} ботов",
    many: "у вас может быть не больше {{max}} ботов",
    other: "у вас может быть не больше {{max}} бота",
  },
  "The bot token is unknown or was reissued": "Токен бота неизвестен или был выпущен заново",
  "The bot was blocked by moderation": "Бот заблокирован модерацией",
  "The bot was disabled by its owner": "Бот отключён владельцем",
  "A webhook was set for this bot: updates go there now": "Для этого бота задан вебхук: обновления теперь идут туда",
  "Another getUpdates call for this bot took over": "Другой вызов getUpdates этого бота занял его место",
  "This chat has no mini-app menu": "В этом чате нет меню мини-приложения",
  "is not the address of a mini-app button on this message": "не адрес кнопки мини-приложения в этом сообщении",
  "is not the callback data of a button on this message": "не данные кнопки этого сообщения",
  "commands must be an Array of BotCommand": "commands должно быть массивом BotCommand",
  "too many commands specified (maximum {{max}})": "слишком много команд (не больше {{max}})",
  "commands[{{i}}] must be a BotCommand": "commands[{{i}}] должно быть объектом BotCommand",
  "command must be non-empty": "команда не может быть пустой",
  "command must contain only lowercase English letters, digits and underscores (1-32 characters)":
    "команда — только строчные латинские буквы, цифры и подчёркивания (от 1 до 32 символов)",
  "command description must be non-empty": "описание команды не может быть пустым",
  "command description is too long (maximum {{max}})": "описание команды слишком длинное (не больше {{max}})",

  // addresses the server sends to (push endpoints)
  "invalid URL": "неверный адрес",
  "an HTTPS URL must be provided": "нужен адрес HTTPS",
  "URL must not contain credentials": "в адресе не должно быть логина и пароля",
  "URL host is not public": "адрес не публичный",
  "IP address is not public": "IP-адрес не публичный",

  // push
  "No such push subscription": "Такой подписки на уведомления нет",
  "must be 16 bytes, base64url": "должно быть 16 байт в base64url",
  "must be an uncompressed P-256 public key (65 bytes, base64url)":
    "должно быть несжатым открытым ключом P-256 (65 байт, base64url)",

  // reports and administration
  "Report not found": "Жалоба не найдена",
  "The report is already resolved": "Жалоба уже рассмотрена",
  "The reported account is gone": "Учётной записи, на которую пожаловались, больше нет",
  "applies to bots and what they sent only": "относится только к ботам и к тому, что они отправили",
  "applies to posts, comments, stories and messages only":
    "относится только к постам, комментариям, историям и сообщениям",
  "does not apply to a bot: use disable-bot": "не относится к ботам: используйте disable-bot",
  "does not apply to the instance's own account": "не относится к учётной записи самого сервера",
  "is only for block-posting": "только для block-posting",
  "is your own account: you cannot disable it": "это ваша учётная запись: её нельзя отключить",
  "is your own account: you cannot revoke admin from it (another administrator can)":
    "это ваша учётная запись: снять с неё права администратора нельзя (может другой администратор)",
  "is your own account: you cannot ban the devices of it":
    "это ваша учётная запись: её устройства нельзя заблокировать",
  "is your own account: you cannot set a password for it (change your own in the account settings)":
    "это ваша учётная запись: задать ей пароль отсюда нельзя (смените свой в настройках)",
  "is a bot or the system account: only people can be administrators":
    "это бот или системная учётная запись: администраторами бывают только люди",
  "{{username}} is the last administrator: grant admin to another account first":
    "{{username}} — последний администратор: сначала назначьте администратором другую учётную запись",
  "Only administrators can do this": "Это могут только администраторы",
  "give at least one setting to change": "укажите хотя бы одну настройку",
  "is not a config key": "нет такой настройки",
  "cannot be changed on a running server: use socialctl config set and restart":
    "не меняется на работающем сервере: используйте socialctl config set и перезапустите",
  "must be an absolute http(s) URL": "должно быть полным адресом http(s)",
  "must be a redis://host:port[/db] URL": "должно быть адресом redis://host:port[/db]",
  "must be empty (SQLite) or postgres://user:pass@host:port/db":
    "должно быть пустым (SQLite) или postgres://user:pass@host:port/db",
  'must be a JSON array of strings, such as ["Be kind", "No spam"]':
    'должно быть массивом строк JSON, например ["Будьте добры", "Без спама"]',
  "must have items of at most {{max}} characters": {
    count: "max",
    one: "в каждом пункте не больше {{max}} символа",
    few: "в каждом пункте не больше {{max}} символов",
    many: "в каждом пункте не больше {{max}} символов",
    other: "в каждом пункте не больше {{max}} символа",
  },
  "must be an uploaded file's URL (/files/<name>) or empty":
    "должно быть адресом загруженного файла (/files/<имя>) или пустым",
  "No dead job with this id": "Неудавшейся задачи с таким id нет",
  "No such backup": "Такой резервной копии нет",
  "A backup is already running; try when it ends": "Резервное копирование уже идёт; попробуйте, когда оно закончится",
  "Rebuilding thumbnails and posters is already running; try when it ends":
    "Пересоздание миниатюр и обложек уже идёт; попробуйте, когда оно закончится",
} satisfies ErrorCatalog;
