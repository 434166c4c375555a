import type { NtfyRawPayload } from '../../channels/ntfy/index.ts';
import { outline, type BriefingRender } from './outline.ts';

/**
 * The briefing as one ntfy notification: the title and a few lines (the summary, up to three things that need you,
 * up to three metric alerts), and a click that opens the briefing. ntfy shows it as plain text (Markdown is never
 * asked for), so strangers' text in it is shown as typed; the adapter cuts it to ntfy's 4,096 bytes.
 */

/** How many lines of what needs you (and of the metric alerts) the notification names; the briefing has the rest. */
const LINES = 3;

export function ntfyBriefing(input: BriefingRender): NtfyRawPayload {
  const view = outline(input);
  const lines = [view.summary];
  const needs = input.briefing.needsYou.length;
  for (const part of [view.needsYou, view.metricAlerts]) {
    if (!part || (part === view.needsYou && needs === 0)) continue;
    lines.push(...part.lines.slice(0, LINES).map((line) => `• ${line.text}`));
    if (part.lines.length > LINES) lines.push(`and ${part.lines.length - LINES} more`);
  }
  const urgent = input.parts.includes('needs_you') && needs > 0;
  return {
    title: view.title,
    message: lines.join('\n'),
    // "Message priority": 4 pops over, 3 is the default; a briefing with something that needs you pops over.
    priority: urgent ? 4 : 3,
    // "Tags & emojis": shown as 📰 before the title.
    tags: ['newspaper'],
    click: view.href,
  };
}
