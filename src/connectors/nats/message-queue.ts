/**
 * The messages a NATS source has received and not yet turned into rows: stream sequence, subject
 * and payload in parallel arrays, in stream order, so that a message costs no object of its own
 * and a poll takes a run of them without awaiting anything.
 */

/** A FIFO of received messages; `take` and `push` are O(1) amortised. */
export class MessageQueue {
  #sequences: number[] = [];
  #subjects: string[] = [];
  #payloads: Uint8Array[] = [];
  #head = 0;

  /** Messages waiting. */
  get size(): number {
    return this.#sequences.length - this.#head;
  }

  /** Appends a message; sequences must rise. */
  push(sequence: number, subject: string, payload: Uint8Array): void {
    this.#sequences.push(sequence);
    this.#subjects.push(subject);
    this.#payloads.push(payload);
  }

  /** The stream sequence of the oldest message; only when `size > 0`. */
  get sequence(): number {
    return this.#sequences[this.#head]!;
  }

  /** The subject of the oldest message; only when `size > 0`. */
  get subject(): string {
    return this.#subjects[this.#head]!;
  }

  /** The payload of the oldest message; only when `size > 0`. */
  get payload(): Uint8Array {
    return this.#payloads[this.#head]!;
  }

  /** Removes the oldest message. */
  shift(): void {
    this.#payloads[this.#head] = EMPTY;
    this.#head++;
    if (this.#head === this.#sequences.length) this.clear();
    else if (this.#head >= 4096 && this.#head * 2 >= this.#sequences.length) this.#compact();
  }

  /** Forgets every message. */
  clear(): void {
    this.#sequences.length = 0;
    this.#subjects.length = 0;
    this.#payloads.length = 0;
    this.#head = 0;
  }

  #compact(): void {
    this.#sequences = this.#sequences.slice(this.#head);
    this.#subjects = this.#subjects.slice(this.#head);
    this.#payloads = this.#payloads.slice(this.#head);
    this.#head = 0;
  }
}

const EMPTY = new Uint8Array(0);
