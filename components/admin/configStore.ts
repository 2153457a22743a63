'use client';
/** The manager's configuration store (REST /config/*): read a key or a prefix, set a key, delete a key or a prefix. */
import { managerSend } from '@/components/api/useManager';

export type ConfigTree = { [key: string]: string | ConfigTree };
export type ConfigValue = string | ConfigTree | null;

export async function readConfig(key: string, prefix: boolean): Promise<ConfigValue> {
  const answer = await managerSend<{ result: ConfigValue }>('POST', '/config/get', { key, prefix });
  return answer.result;
}

export async function writeConfig(key: string, value: string): Promise<void> {
  await managerSend('POST', '/config/set', { key, value });
}

export async function deleteConfig(key: string, prefix: boolean): Promise<void> {
  await managerSend('POST', '/config/delete', { key, prefix });
}
