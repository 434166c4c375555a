import type { Idea } from '@dash/contracts';
import type { Shipped } from '../connector.ts';
import type { LinearIssue } from './schemas.ts';

export const defaultIdeaWords = ['idea', 'feature', 'feature request', 'enhancement', 'feedback', 'suggestion', 'improvement'];
export const defaultBugWords = ['bug', 'defect', 'crash', 'regression', 'error'];

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** True when `word` (one word or a phrase) stands on its own in `label`, ignoring case: "Bug" in "bug: ios", not in "debugger". */
export function labelHasWord(label: string, word: string): boolean {
  const wanted = word.trim();
  if (wanted === '') return false;
  return new RegExp(`(?:^|[^\\p{L}\\p{N}])${escape(wanted)}(?:$|[^\\p{L}\\p{N}])`, 'iu').test(label);
}

/** An issue is a bug or an idea by its labels; bug wins when both match; neither leaves it out. */
export function categorise(labels: readonly string[], ideaWords: readonly string[], bugWords: readonly string[]): Idea['type'] | undefined {
  const any = (words: readonly string[]) => labels.some((label) => words.some((word) => labelHasWord(label, word)));
  if (any(bugWords)) return 'bug';
  if (any(ideaWords)) return 'idea';
  return undefined;
}

/** Linear's five priority levels; a value outside them (the schema only says Float) is no priority rather than a failed feed. */
export const priorityLevel = (priority: number): Idea['priority'] => (Number.isInteger(priority) && priority >= 0 && priority <= 4 ? priority : 0);

export function toIdea(issue: LinearIssue, type: Idea['type']): Idea {
  return {
    id: issue.identifier,
    title: issue.title,
    type,
    priority: priorityLevel(issue.priority),
    status: issue.state.type === 'started' ? 'in_progress' : 'open',
    createdAt: new Date(issue.createdAt).toISOString(),
    labels: issue.labels.nodes.map((label) => label.name),
    url: issue.url,
  };
}

/** Urgent (1) to low (4), then no priority (0) last; within a priority the oldest first. */
export function compareIdeas(a: Idea, b: Idea): number {
  const rank = (priority: number) => (priority === 0 ? 5 : priority);
  return rank(a.priority) - rank(b.priority) || a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id);
}

export function toShipped(issue: LinearIssue & { completedAt: string }): Shipped {
  return { title: issue.title, source: 'issue_tracker', url: issue.url, shippedAt: new Date(issue.completedAt).toISOString() };
}
