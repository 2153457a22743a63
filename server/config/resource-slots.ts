/**
 * `GET /config/resource-slots` and `/config/resource-slots/details` (CONTRACT §12): the slots active in the
 * cluster with their unit, and how a client should display each one.
 */
import type { App } from '../app';
import { activeSlots, type SlotType } from '../resources/slots';

export interface SlotDetails {
  slot_name: string;
  description: string;
  human_readable_name: string;
  display_unit: string;
  number_format: { binary: boolean; round_length: number };
  display_icon: string;
}

type Presentation = Omit<SlotDetails, 'slot_name'>;

/** How the well-known slots are shown; accelerators not listed here get a presentation derived from the name. */
const KNOWN: Record<string, Presentation> = {
  cpu: { description: 'CPU', human_readable_name: 'CPU', display_unit: 'Core', number_format: { binary: false, round_length: 0 }, display_icon: 'cpu' },
  mem: { description: 'Memory', human_readable_name: 'RAM', display_unit: 'GiB', number_format: { binary: true, round_length: 0 }, display_icon: 'ram' },
  'cuda.device': { description: 'CUDA-capable GPU', human_readable_name: 'GPU', display_unit: 'GPU', number_format: { binary: false, round_length: 0 }, display_icon: 'nvidia' },
  'cuda.shares': { description: 'CUDA-capable GPU (fractional)', human_readable_name: 'fGPU', display_unit: 'fGPU', number_format: { binary: false, round_length: 2 }, display_icon: 'nvidia' },
  'cuda.mem': { description: 'GPU memory', human_readable_name: 'GPU RAM', display_unit: 'GiB', number_format: { binary: true, round_length: 0 }, display_icon: 'nvidia' },
};

function presentation(name: string, type: SlotType): Presentation {
  if (KNOWN[name]) return KNOWN[name];
  const device = name.includes('.') ? name.slice(0, name.indexOf('.')) : name;
  return {
    description: name,
    human_readable_name: name,
    display_unit: type === 'bytes' ? 'GiB' : 'Unit',
    number_format: { binary: type === 'bytes', round_length: 0 },
    display_icon: device,
  };
}

/** Slot name → `count` | `bytes`. */
export async function resourceSlots(app: App): Promise<Record<string, SlotType>> {
  return activeSlots(app);
}

/** Display details of every active slot, or of the base slots and those reported in one scaling group. */
export async function resourceSlotDetails(app: App, scalingGroup?: string): Promise<Record<string, SlotDetails>> {
  const slots = await activeSlots(app, scalingGroup);
  const out: Record<string, SlotDetails> = {};
  for (const [name, type] of Object.entries(slots)) out[name] = { slot_name: name, ...presentation(name, type) };
  return out;
}
