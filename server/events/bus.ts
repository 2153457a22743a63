/**
 * The event bus: session and kernel lifecycle events (CONTRACT §10.1) and background-task progress (§10.2).
 * Every event is published after the state it announces is persisted. SSE streams subscribe here. Events travel
 * through the cluster (cluster/notify): delivered here at once, and once on every other replica.
 */
import { EventEmitter } from 'node:events';
import { LocalCluster, type Cluster } from '../cluster/notify';

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

  constructor(private readonly cluster: Cluster = new LocalCluster()) {
    this.emitter.setMaxListeners(0);
    cluster.onEvent((kind, body) => this.deliver(kind, body));
  }

  private deliver(kind: string, body: unknown): void {
    if (kind === 'session') this.emitter.emit('session', body);
    else if (kind === 'status') {
      const { sessionId, status } = body as { sessionId: string; status: string };
      this.emitter.emit(`status:${sessionId}`, status);
    } else if (kind === 'task') this.emitter.emit(`task:${(body as BackgroundTaskEvent).taskId}`, body);
  }

  publishSession(event: SessionEvent): void {
    this.emitter.emit('session:here', event);
    this.cluster.publish('session', event);
  }

  /** Only the events this process raised (per-process figures such as metrics, which replicas must not repeat). */
  onLocalSession(listener: (event: SessionEvent) => void): () => void {
    this.emitter.on('session:here', listener);
    return () => this.emitter.off('session:here', listener);
  }

  onSession(listener: (event: SessionEvent) => void): () => void {
    this.emitter.on('session', listener);
    return () => this.emitter.off('session', listener);
  }

  /** Internal: every status a session enters (waiters of POST /session listen here). */
  publishStatus(sessionId: string, status: string): void {
    this.cluster.publish('status', { sessionId, status });
  }

  onStatus(sessionId: string, listener: (status: string) => void): () => void {
    this.emitter.on(`status:${sessionId}`, listener);
    return () => this.emitter.off(`status:${sessionId}`, listener);
  }

  publishTask(event: BackgroundTaskEvent): void {
    this.cluster.publish('task', event);
  }

  onTask(taskId: string, listener: (event: BackgroundTaskEvent) => void): () => void {
    this.emitter.on(`task:${taskId}`, listener);
    return () => this.emitter.off(`task:${taskId}`, listener);
  }

  /** Announces this process's shutdown to its open streams (local: the other replicas keep theirs). */
  close(): void {
    this.emitter.emit('close');
  }

  onClose(listener: () => void): () => void {
    this.emitter.on('close', listener);
    return () => this.emitter.off('close', listener);
  }
}
