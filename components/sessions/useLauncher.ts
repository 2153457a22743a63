'use client';
/** The launcher's data: images (GraphQL), resource presets and what the user may still allocate, and launching. */
import useSWR from 'swr';
import type { ManagerError } from '@/components/api/problem';
import { managerSend, useManager } from '@/components/api/useManager';
import { graphql } from '@/components/api/graphql';

export interface ImageChoice {
  id: string;
  name: string;
  tag: string;
  runtime: string;
  aliases: string[];
  is_customized: boolean;
  resource_limits: { key: string; min: string | null; max: string | null }[];
  /** JSON text of [{name, protocol, ports}]. */
  service_ports: string;
}

export interface Preset {
  name: string;
  resource_slots: Record<string, string>;
  shared_memory: string | null;
}

export interface ResourceCheck {
  keypair_remaining: Record<string, string>;
  scaling_group_remaining: Record<string, string>;
  presets: (Preset & { allocatable: boolean })[];
}

const IMAGES_QUERY = '{ images { id name tag runtime aliases is_customized resource_limits { key min max } service_ports } }';

export function useImages() {
  return useSWR<ImageChoice[], ManagerError>('gql:images', () => graphql<{ images: ImageChoice[] }>(IMAGES_QUERY).then((d) => d.images), {
    revalidateOnFocus: false,
  });
}

/** The scaling groups the user may launch in for a project: `default` is this machine, others a cluster. */
export function useScalingGroups(project: string) {
  return useManager<{ scaling_groups: { name: string }[] }>(`/scaling-groups?${new URLSearchParams({ group: project })}`, { revalidateOnFocus: false });
}

/** The active projects the user belongs to (sessions are launched in one of them; `default` unless chosen). */
export function useMyProjects() {
  return useSWR<{ id: string; name: string }[], ManagerError>('gql:my-projects', () => graphql<{ user: { groups: { id: string; name: string }[] | null } | null }>('{ user { groups { id name } } }').then((d) => d.user?.groups ?? []), {
    revalidateOnFocus: false,
  });
}

export function usePresets() {
  return useManager<{ presets: Preset[] }>('/resource/presets', { revalidateOnFocus: false });
}

/** POST /resource/check-presets: the remainder and each preset's allocatability, refreshed every 15 s. */
export function useResourceCheck() {
  return useSWR<ResourceCheck, ManagerError>('check-presets', () => managerSend<ResourceCheck>('POST', '/resource/check-presets', {}), {
    refreshInterval: 15_000,
    keepPreviousData: true,
  });
}

export interface LaunchRequest {
  name: string;
  image: string;
  type: 'interactive' | 'batch';
  startupCommand?: string;
  cluster_size: number;
  resources: Record<string, string>;
  sharedMemory?: string | null;
  environ: Record<string, string>;
  /** Folder id → path inside the session. */
  mounts: Record<string, string>;
  scalingGroup: string;
  /** The project's name. */
  project: string;
}

/**
 * Creates the session without waiting for it to start (enqueueOnly): the session page shows it starting. A
 * name already in use is refused rather than reused.
 */
export function launchSession(request: LaunchRequest): Promise<{ sessionId: string; sessionName: string; status: string }> {
  return managerSend('POST', '/session', {
    name: request.name,
    image: request.image,
    type: request.type,
    startupCommand: request.type === 'batch' ? request.startupCommand : undefined,
    cluster_size: request.cluster_size,
    cluster_mode: 'single-node',
    group: request.project,
    enqueueOnly: true,
    reuseIfExists: false,
    config: {
      resources: request.resources,
      environ: request.environ,
      scaling_group: request.scalingGroup,
      // Every chosen folder by id; each path goes in mount_map (the manager normalizes and checks it).
      ...(Object.keys(request.mounts).length
        ? { mounts: Object.keys(request.mounts), mount_map: Object.fromEntries(Object.entries(request.mounts).map(([id, path]) => [id, path.trim()])) }
        : {}),
      ...(request.sharedMemory ? { resource_opts: { shmem: request.sharedMemory } } : {}),
    },
  });
}
