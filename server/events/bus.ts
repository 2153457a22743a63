/**
 * The in-process event bus: session and kernel lifecycle events (CONTRACT §10.1) and background-task progress
 * (§10.2). Every event is published after the state it announces is persisted. SSE streams subscribe here.
 */
import { EventEmitter } from 'node:events';

export interface SessionEventPayload {
  sessionId: string;
  sessionName: string;
  ownerAccessKey: string;
  reason: string;
  exitCode: number | null;
  kernelId?: string;
  clusterRole?: string;
  clusterIdx?: number;
}

export interface SessionEvent {
  name: string;
  payload: SessionEventPayload;
  /** Who may see it: the session's domain and project. */
  domainName: string;
  groupId: string;
}

export interface BackgroundTaskEvent {
  name: 'bgtask_updated' | 'bgtask_done' | 'bgtask_cancelled' | 'bgtask_failed';
  taskId: string;
  payload: Record<string, unknown>;
}

export class EventBus {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  publishSession(event: SessionEvent): void {
    this.emitter.emit('session', event);
  }

  onSession(listener: (event: SessionEvent) => void): () => void {
    this.emitter.on('session', listener);
    return () => this.emitter.off('session', listener);
  }

  /** Internal: every status a session enters (waiters of POST /session listen here). */
  publishStatus(sessionId: string, status: string): void {
    this.emitter.emit(`status:${sessionId}`, status);
  }

  onStatus(sessionId: string, listener: (status: string) => void): () => void {
    this.emitter.on(`status:${sessionId}`, listener);
    return () => this.emitter.off(`status:${sessionId}`, listener);
  }

  publishTask(event: BackgroundTaskEvent): void {
    this.emitter.emit(`task:${event.taskId}`, event);
  }

  onTask(taskId: string, listener: (event: BackgroundTaskEvent) => void): () => void {
    this.emitter.on(`task:${taskId}`, listener);
    return () => this.emitter.off(`task:${taskId}`, listener);
  }

  /** Announces shutdown to every open stream. */
  close(): void {
    this.emitter.emit('close');
  }

  onClose(listener: () => void): () => void {
    this.emitter.on('close', listener);
    return () => this.emitter.off('close', listener);
  }
}
