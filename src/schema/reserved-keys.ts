import { formatPath } from './errors.js';

/** Where the JSON `text`, parsed as `value`, has an own key `__proto__`, as a path; undefined when nowhere. */
export function reservedKeyIn(text: string, value: unknown): string | undefined {
  // JSON.parse makes an own key "__proto__" of every spelling, escaped ones ("\u005f_proto__") too
  return text.includes('__proto__') || text.includes('\\u') ? reservedKeyPath(value) : undefined;
}

/** One step from the body's root: an array index or an object key. */
interface Step {
  parent: Step | undefined;
  part: number | string;
}

function pathOf(step: Step): string {
  const parts: Array<number | string> = [];
  for (let at: Step | undefined = step; at; at = at.parent) parts.push(at.part);
  return formatPath(parts.reverse());
}

/**
 * Where the parsed body has an own key `__proto__`, as a path (the first in document order).
 * Validation would silently drop such a key (assigning it to a plain object replaces the
 * prototype), so it is refused instead. An explicit stack, not recursion: a 1 MiB body can nest
 * hundreds of thousands of levels deep, and each level holds only a link to its parent, so the
 * walk costs the size of the body and the path is spelled out once, for the key found.
 */
function reservedKeyPath(body: unknown): string | undefined {
  const pending: Array<{ value: unknown; at: Step | undefined }> = [{ value: body, at: undefined }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { value, at } = next;
    if (at?.part === '__proto__') return pathOf(at);
    if (typeof value !== 'object' || value === null) continue;
    const entries: Array<[number | string, unknown]> = Array.isArray(value) ? [...value.entries()] : Object.entries(value);
    // reversed onto the stack, so the first entry is walked first
    for (let i = entries.length - 1; i >= 0; i--) {
      const [part, item] = entries[i]!;
      pending.push({ value: item, at: { parent: at, part } });
    }
  }
  return undefined;
}
