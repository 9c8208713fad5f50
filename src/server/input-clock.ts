// When a user last typed into the server (any client's keys, paste, mouse): background work that stalls the event loop for long waits for a pause in typing.
let last = Number.NEGATIVE_INFINITY;

/** A client's input reached the server (ClientLink.noteInput). */
export function noteUserInput(now: number = Date.now()): void {
  last = now;
}

/** When input last arrived (-Infinity: never). */
export function lastUserInputAt(): number {
  return last;
}
