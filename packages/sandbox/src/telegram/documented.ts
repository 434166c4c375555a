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
