import type { MessagePort } from 'node:worker_threads';
import { checkedDelay, type Queue, type QueueName, type SendOptions } from '../../ports/queue.js';
import { deserializeError, type FromInstance, type ToInstance } from './instance-messages.js';

/**
 * The Queue port inside a Lambda-like instance: each send goes to the main thread's LocalQueue over the worker
 * port and resolves once that queue has accepted it, as an SQS SendMessage would.
 */
export class InstanceQueue implements Queue {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();

  constructor(private readonly port: MessagePort) {}

  send(queue: QueueName, message: unknown, options?: SendOptions): Promise<void> {
    const delaySeconds = checkedDelay(options);
    const id = this.nextId++;
    const request: FromInstance = {
      kind: 'queue-send',
      id,
      queue,
      body: JSON.stringify(message),
      delaySeconds,
    };
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.port.postMessage(request);
    });
  }

  /** Settles a send with the main thread's answer. */
  answered(message: Extract<ToInstance, { kind: 'queue-sent' }>): void {
    const waiting = this.pending.get(message.id);
    if (!waiting) return;
    this.pending.delete(message.id);
    if (message.error) waiting.reject(deserializeError(message.error));
    else waiting.resolve();
  }
}
