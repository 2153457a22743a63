/** Server-sent events (CONTRACT §10) read from a response stream, for the commands that follow one. */

export interface ServerEvent {
  event: string | undefined;
  /** The `data:` line parsed as JSON; {} when there is none. */
  data: Record<string, unknown>;
}

/** Each event of the stream as it arrives, until the stream ends. */
export async function* serverEvents(stream: AsyncIterable<Buffer | string>): AsyncGenerator<ServerEvent> {
  let buffer = '';
  for await (const chunk of stream) {
    buffer += chunk.toString();
    let split: number;
    while ((split = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, split);
      buffer = buffer.slice(split + 2);
      const data = /^data: (.*)$/m.exec(block)?.[1];
      yield { event: /^event: (.*)$/m.exec(block)?.[1], data: data ? JSON.parse(data) : {} };
    }
  }
}
