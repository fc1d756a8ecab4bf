/**
 * The marts' statements as spans on a `node:diagnostics_channel`, each with the pg client
 * that ran it, so the benchmark (bench/) can read what they cost the database backend.
 * Nothing is published, and nothing but a subscriber check is done, while nobody listens.
 */
import { channel } from 'node:diagnostics_channel';

/** Name of the channel the spans are published on. */
const MART_TIMING_CHANNEL = 'punchline:marts';

/** A span's start or end, as published. */
export interface MartSpan {
  readonly phase: 'start' | 'end';
  /** Which mart the statement keeps (employments, employee_daily, ...). */
  readonly mart: string;
  /** The pg client that runs it (its `processID` is the backend's pid). */
  readonly client: object;
}

const spans = channel(MART_TIMING_CHANNEL);

/** Publishes the start of `work` now and its end when it settles; returns `work` unchanged. */
export function publishMartSpan<T>(mart: string, client: object, work: Promise<T>): Promise<T> {
  if (!spans.hasSubscribers) return work;
  spans.publish({ phase: 'start', mart, client } satisfies MartSpan);
  const end = () => spans.publish({ phase: 'end', mart, client } satisfies MartSpan);
  work.then(end, end);
  return work;
}
