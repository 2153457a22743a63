'use client';
/**
 * The settings page's data: the caller's account (GraphQL `user` without arguments answers the caller), password,
 * SSH keypair, dotfiles and bootstrap script, each read and written through the relay, except generating an SSH
 * keypair: the relay never carries a private key, so the new one comes from /api/ssh-keypair.
 */
import { mutate } from 'swr';
import { ManagerError, problemFrom } from '@/components/api/problem';
import { managerSend, useManager } from '@/components/api/useManager';
import { revalidateGraphql, useGraphql } from '@/components/api/graphql';

export interface Account {
  email: string;
  username: string | null;
  full_name: string | null;
  domain_name: string;
  role: string;
  created_at: string | null;
}

/** Never selects main_access_key: keys stay on the server. */
export const ACCOUNT_QUERY = '{ user { email username full_name domain_name role created_at } }';

export function useAccount() {
  return useGraphql<{ user: Account | null }>(ACCOUNT_QUERY);
}

export async function updateFullName(email: string, fullName: string): Promise<void> {
  await managerSend('POST', '/auth/update-full-name', { email, full_name: fullName });
  await revalidateGraphql(ACCOUNT_QUERY);
}

export async function updatePassword(input: { old_password: string; new_password: string; new_password2: string }): Promise<void> {
  await managerSend('POST', '/auth/update-password', input);
}

export interface SshKeypair {
  ssh_public_key: string;
  ssh_private_key: string;
}

const SSH_KEYPAIR_ROUTE = '/api/ssh-keypair';

const SSH_KEY_PATH = '/auth/ssh-keypair';

export function useSshPublicKey() {
  return useManager<{ ssh_public_key: string | null }>(SSH_KEY_PATH);
}

/** Generates a new pair on the manager; the private key is in the answer once and is not kept by the page. */
export async function generateSshKeypair(): Promise<SshKeypair> {
  const response = await fetch(SSH_KEYPAIR_ROUTE, { method: 'PATCH', credentials: 'same-origin', cache: 'no-store' });
  if (!response.ok) throw new ManagerError(response.status, await problemFrom(response));
  const pair = (await response.json()) as SshKeypair;
  await mutate(SSH_KEY_PATH, { ssh_public_key: pair.ssh_public_key }, { revalidate: false });
  return pair;
}

/** The answer, relayed, holds the public key only. */
export async function uploadSshKeypair(pubkey: string, privkey: string): Promise<void> {
  const pair = await managerSend<Pick<SshKeypair, 'ssh_public_key'>>('POST', SSH_KEY_PATH, { pubkey, privkey });
  await mutate(SSH_KEY_PATH, { ssh_public_key: pair.ssh_public_key }, { revalidate: false });
}

export interface Dotfile {
  path: string;
  permission: string;
  data: string;
}

const DOTFILES_PATH = '/user-config/dotfiles';

export function useDotfiles() {
  return useManager<Dotfile[]>(DOTFILES_PATH);
}

export async function saveDotfile(dotfile: Dotfile, mode: 'create' | 'update'): Promise<void> {
  await managerSend(mode === 'create' ? 'POST' : 'PATCH', DOTFILES_PATH, dotfile);
  await mutate(DOTFILES_PATH);
}

export async function deleteDotfile(path: string): Promise<void> {
  await managerSend('DELETE', `${DOTFILES_PATH}?${new URLSearchParams({ path })}`);
  await mutate(DOTFILES_PATH);
}

const BOOTSTRAP_PATH = '/user-config/bootstrap-script';

export function useBootstrapScript() {
  return useManager<string>(BOOTSTRAP_PATH, { revalidateOnFocus: false });
}

export async function saveBootstrapScript(script: string): Promise<void> {
  await managerSend('POST', BOOTSTRAP_PATH, { script });
  await mutate(BOOTSTRAP_PATH, script, { revalidate: false });
}
