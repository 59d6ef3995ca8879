/**
 * Frames as the socket thread hands them to zeromq.
 *
 * zeromq.js sends a Buffer of more than 128 bytes without copying it: the
 * message keeps a reference to the Buffer, and zeromq's I/O thread, once it
 * has written or dropped the frame, returns that reference to the sending
 * thread's addon state. A worker thread's addon state is freed when the
 * thread's environment is torn down, but frames of a closed socket can still
 * be waiting in zeromq then (the context is shared with the main thread, so
 * nothing waits for them): the I/O thread then writes into freed memory. That
 * corrupted the heap at about one kernel exit in ten ("corrupted
 * double-linked list" in zeromq's reaper or in a worker's isolate teardown).
 *
 * zeromq copies strings and small Buffers into memory it owns, so a frame
 * sent that way refers to nothing of the thread. Every frame of a Jupyter
 * message but the identities and the binary buffers is UTF-8 text; those go
 * as strings. What is left (binary frames over the threshold: large routing
 * identities, message buffers on control or stdin, long binary heartbeat
 * pings) is counted: the socket thread then must outlive them, which it does
 * by staying up until the process ends (see worker.ts, "close"), and the
 * process then ends without Node's teardown of that thread (guard.ts,
 * exitProcess); with none, Node's own exit is safe, and is what runs.
 */
import { isUtf8 } from "buffer";

/** zeromq.js sends Buffers longer than this without copying them (its zero_copy_threshold, 1 << 7 bytes). */
export const kZeroCopyAboveBytes = 128;

let zeroCopyFrames = 0;

/** Binary frames over kZeroCopyAboveBytes handed to zeromq without a copy since this thread started. */
export function zeroCopyFrameCount(): number {
  return zeroCopyFrames;
}

/**
 * The frames to give zeromq so that it copies them: small Buffers as they
 * are, larger UTF-8 frames as strings (the same bytes on the wire), larger
 * binary frames as they are, counted by zeroCopyFrameCount.
 */
export function copiedFrames(frames: readonly Buffer[]): (Buffer | string)[] {
  return frames.map((f) => {
    if (f.length <= kZeroCopyAboveBytes) return f;
    if (isUtf8(f)) return f.toString("utf8");
    zeroCopyFrames++;
    return f;
  });
}
