import type { ItemFields, StoredItem } from '../store/item-types';
import type { ItemInput } from './item-input';

/**
 * Whether a POST repeats the stored item (a safe retry) rather than changing it: every
 * field as stored, optional fields left out on both sides alike. A pubDate left out
 * means "when first published", so it matches whatever the stored item has.
 */
export function sameItem(stored: StoredItem, input: ItemInput): boolean {
  const f: ItemFields = input.fields;
  return (
    stored.title === f.title &&
    stored.link === f.link &&
    stored.description === f.description &&
    stored.category === f.category &&
    stored.creator === f.creator &&
    stored.author === f.author &&
    (!input.pubDateGiven || stored.pubDate.getTime() === f.pubDate.getTime()) &&
    stored.enclosure?.url === f.enclosure?.url &&
    stored.enclosure?.length === f.enclosure?.length &&
    stored.enclosure?.type === f.enclosure?.type
  );
}
