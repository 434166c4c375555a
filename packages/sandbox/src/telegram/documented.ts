/**
 * Telegram's own text for the Bot API, copied from core.telegram.org (read through the copies MarshalX/telegram-crawler
 * keeps of the pages: data/web/core.telegram.org/bots/api.html at 02e7632, bots/faq.html at 0985859). The reference
 * prints no JSON answer for sendMessage: what is kept is what it prints, the request form, the answer's fields as
 * "Making requests" words them, the HTML style's example, and the FAQ's limits. The fake is held to them in
 * documented.test.ts.
 */
const api = 'https://core.telegram.org/bots/api';

export const telegramDocumented = {
  /** "All queries to the Telegram Bot API must be served over HTTPS and need to be presented in this form…" */
  requestForm: { url: `${api}#making-requests`, form: 'https://api.telegram.org/bot<token>/METHOD_NAME', example: 'https://api.telegram.org/bot123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11/getMe' },
  /**
   * "The response contains a JSON object, which always has a Boolean field 'ok' and may have an optional String field
   * 'description' with a human-readable description of the result. If 'ok' equals True, the request was successful and
   * the result of the query can be found in the 'result' field. In case of an unsuccessful request, 'ok' equals false
   * and the error is explained in the 'description'. An Integer 'error_code' field is also returned, but its contents
   * are subject to change in the future. Some errors may also have an optional field 'parameters' of the type
   * ResponseParameters, which can help to automatically handle the error."
   */
  answer: { url: `${api}#making-requests`, success: ['ok', 'result'], failure: ['ok', 'error_code', 'description'], optional: ['description', 'parameters'] },
  /** sendMessage's parameters a notification uses, as its table names them ("On success, the sent Message is returned"). */
  sendMessage: {
    url: `${api}#sendmessage`,
    required: ['chat_id', 'text'],
    optional: ['parse_mode', 'link_preview_options', 'disable_notification', 'reply_parameters'],
    text: 'Text of the message to be sent, 1-4096 characters after entities parsing',
  },
  /** The Message fields every sent text message has: "message_id", "date", "chat" (required in its table), and "text". */
  message: { url: `${api}#message`, fields: ['message_id', 'date', 'chat', 'text'] },
};

/** "HTML style": "The following tags are currently supported:", as printed (its `\n` are printed as two characters). */
export const telegramDocumentedHtml = {
  url: `${api}#html-style`,
  lines: [
    '<b>bold</b>, <strong>bold</strong>',
    '<i>italic</i>, <em>italic</em>',
    '<u>underline</u>, <ins>underline</ins>',
    '<s>strikethrough</s>, <strike>strikethrough</strike>, <del>strikethrough</del>',
    '<span class="tg-spoiler">spoiler</span>, <tg-spoiler>spoiler</tg-spoiler>',
    '<b>bold <i>italic bold <s>italic bold strikethrough <span class="tg-spoiler">italic bold strikethrough spoiler</span></s> <u>underline italic bold</u></i> bold</b>',
    '<a href="http://www.example.com/">inline URL</a>',
    '<a href="tg://user?id=123456789">inline mention of a user</a>',
    '<tg-emoji emoji-id="5368324170671202286">👍</tg-emoji>',
    '<code>inline fixed-width code</code>',
    '<pre>pre-formatted fixed-width code block</pre>',
    '<pre><code class="language-python">pre-formatted fixed-width code block written in the Python programming language</code></pre>',
    '<blockquote>Block quotation started\\nBlock quotation continued\\nThe last line of the block quotation</blockquote>',
    '<blockquote expandable>Expandable block quotation started\\nExpandable block quotation continued\\nExpandable block quotation continued\\nHidden by default part of the block quotation started\\nExpandable block quotation continued\\nThe last line of the block quotation</blockquote>',
  ],
  notes: [
    'Only the tags mentioned above are currently supported.',
    'All <, > and & symbols that are not a part of a tag or an HTML entity must be replaced with the corresponding HTML entities (< with &lt;, > with &gt; and & with &amp;).',
    'All numerical HTML entities are supported.',
    'The API currently supports only the following named HTML entities: &lt;, &gt;, &amp; and &quot;.',
  ],
};

/** Bots FAQ, "My bot is hitting limits, how do I avoid this?" (https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this). */
export const telegramDocumentedLimits = {
  url: 'https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this',
  chat: "In a single chat, avoid sending more than one message per second. We may allow short bursts that go over this limit, but eventually you'll begin receiving 429 errors.",
  group: 'In a group, bots are not be able to send more than 20 messages per minute.',
  groupPerMinute: 20,
  /** ResponseParameters.retry_after: "In case of exceeding flood control, the number of seconds left to wait before the request can be repeated". */
  retryAfter: `${api}#responseparameters`,
};

const server = 'https://github.com/tdlib/telegram-bot-api/blob/01a3679c0bbf9bbba03d1d3e20f621fa4becddcc/telegram-bot-api';

/**
 * The error descriptions, which the reference does not print ("the error is explained in the 'description'"), as
 * Telegram's own Bot API server writes them (tdlib/telegram-bot-api at 01a3679, 2026-05-07, read in the library's
 * snapshot). Client::fail_query_with_error puts "Bad Request: " / "Unauthorized: " / "Forbidden: " before a message and
 * lowercases its first letter, so `Status::Error(400, "Message text is empty")` is answered "Bad Request: message text is
 * empty"; a 429 always carries `parameters.retry_after` (Query::set_retry_after_error). The fake answers these words.
 */
export const telegramServerErrors = {
  /** ClientManager.cpp:76 `fail_query(401, "Unauthorized: invalid token specified", …)` for a token of the wrong form. */
  malformedToken: { source: `${server}/ClientManager.cpp#L76`, status: 401, description: 'Unauthorized: invalid token specified' },
  /** Client.cpp:16291 `result.message = td::Slice("Unauthorized")` once logging in with the token failed. */
  unauthorized: { source: `${server}/Client.cpp#L16291`, status: 401, description: 'Unauthorized' },
  /** Client.cpp:8201 `fail_query(400, "Bad Request: chat_id is empty", …)`. */
  chatIdEmpty: { source: `${server}/Client.cpp#L8201`, status: 400, description: 'Bad Request: chat_id is empty' },
  /** Client.cpp:6571 TdOnCheckChatCallback's default message "chat not found" (6596 prints "Bad Request: chat not found"). */
  chatNotFound: { source: `${server}/Client.cpp#L6596`, status: 400, description: 'Bad Request: chat not found' },
  /** Client.cpp:11401 `td::Status::Error(400, "Message text is empty")`. */
  textEmpty: { source: `${server}/Client.cpp#L11401`, status: 400, description: 'Bad Request: message text is empty' },
  /** Client.cpp:8516 `fail_query_with_error(…, 400, "MESSAGE_NOT_FOUND", "message to be replied not found")`. */
  replyNotFound: { source: `${server}/Client.cpp#L8516`, status: 400, description: 'Bad Request: message to be replied not found' },
  /** Client.cpp:125-127 `USER_IS_BLOCKED` → `error_code = 403; error_message = "bot was blocked by the user"`. */
  blocked: { source: `${server}/Client.cpp#L127`, status: 403, description: 'Forbidden: bot was blocked by the user' },
  /** Client.cpp:8162 `fail_query(403, "Forbidden: bot was kicked from the group chat", …)`; 8174/8176 supergroup and channel. */
  kickedFromGroup: { source: `${server}/Client.cpp#L8162`, status: 403, description: 'Forbidden: bot was kicked from the group chat' },
  /** Client.cpp:12664 `fail_query(404, "Not Found: method not found", …)`. */
  methodNotFound: { source: `${server}/Client.cpp#L12664`, status: 404, description: 'Not Found: method not found' },
  /** Query.cpp:111 `JsonQueryError(429, PSLICE() << "Too Many Requests: retry after " << retry_after, parameters)`, parameters `retry_after`. */
  tooManyRequests: { source: `${server}/Query.cpp#L111`, status: 429, description: 'Too Many Requests: retry after ', parameters: ['retry_after'] },
  /** Client.cpp:11323 `td::Status::Error(400, "Unsupported parse_mode")`. */
  unsupportedParseMode: { source: `${server}/Client.cpp#L11323`, status: 400, description: 'Bad Request: unsupported parse_mode' },
};

/**
 * Not in that server's code (TDLib, a submodule the snapshot lacks, writes them): "Bad Request: message is too long" and
 * "Bad Request: can't parse entities: …". A bot library keeps the first as Telegram answers it: tucnak/telebot errors.go at
 * 4f8982b, `ErrTooLongMessage = NewError(400, "Bad Request: message is too long")`; the same file keeps the older reply
 * wording `ErrNotFoundToReply = NewError(400, "Bad Request: reply message not found")`, which the server above no longer
 * writes (aiogram/aiogram#447 changed to it in 2020; the server now says "message to be replied not found").
 */
export const telegramLibraryErrors = {
  tooLong: { source: 'https://github.com/tucnak/telebot/blob/4f8982b3edb5cc129c063881b1d93e75082ad8a6/errors.go#L112', status: 400, description: 'Bad Request: message is too long' },
};
