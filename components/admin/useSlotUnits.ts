'use client';
/** The cluster's active resource slots and their units (GET /config/resource-slots: slot → "count" | "bytes"). */
import { useManager } from '@/components/api/useManager';
import type { SlotUnits } from './format';

export function useSlotUnits() {
  return useManager<SlotUnits>('/config/resource-slots', { revalidateOnFocus: false });
}
