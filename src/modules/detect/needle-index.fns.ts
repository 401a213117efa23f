/**
 * Which of many literals occur in a text, in one pass (Aho–Corasick over UTF-16 code units).
 * The compiled rules' pre-filter literals ("needles") of every rule of a logsource go into one
 * index, so an event's lower-cased haystack is scanned once instead of once per rule and
 * literal (with 1,000 rules that was most of the matching time: docs/performance.md).
 *
 * The automaton is a full DFA in flat typed arrays: each code unit maps to a class (the code
 * units that occur in some needle; every other one is class 0, which always leads back to the
 * root), and `delta[state * classes + class]` is the next state with the failure links already
 * followed. The scan is then one array read per character, with no Map lookups and no failure
 * chain to walk (a Map per state cost most of the matching time: docs/performance-history.md).
 */
export class NeedleIndex {
  /** Code unit → class (0: in no needle). */
  private readonly classOf = new Uint16Array(65536);
  private readonly classes: number;
  private readonly delta: Int32Array;
  /** Needle ids ending at a state (its failure chain's included): outIds[outStart[s] .. outStart[s + 1]). */
  private readonly outStart: Int32Array;
  private readonly outIds: Int32Array;

  constructor(needles: readonly string[]) {
    let classes = 1;
    for (const needle of needles) for (let i = 0; i < needle.length; i++) {
      const c = needle.charCodeAt(i);
      if (this.classOf[c] === 0) this.classOf[c] = classes++;
    }
    this.classes = classes;
    // The trie, as a growing table of transitions (-1: none yet).
    let goto = new Int32Array(64 * classes).fill(-1);
    let states = 1;
    const ends: number[][] = [[]];
    needles.forEach((needle, id) => {
      let s = 0;
      for (let i = 0; i < needle.length; i++) {
        const k = s * classes + this.classOf[needle.charCodeAt(i)]!;
        let t = goto[k]!;
        if (t === -1) {
          t = states++;
          if (states * classes > goto.length) {
            const grown = new Int32Array(goto.length * 2).fill(-1);
            grown.set(goto);
            goto = grown;
          }
          goto[k] = t;
          ends.push([]);
        }
        s = t;
      }
      ends[s]!.push(id);
    });
    // Breadth first: fill the missing transitions from the failure state's (already complete).
    const delta = goto.subarray(0, states * classes);
    const fail = new Int32Array(states);
    const queue: number[] = [];
    for (let c = 0; c < classes; c++) {
      const t = delta[c]!;
      if (t === -1) delta[c] = 0;
      else queue.push(t);
    }
    for (let q = 0; q < queue.length; q++) {
      const s = queue[q]!;
      const f = fail[s]!;
      if (ends[f]!.length) ends[s] = [...ends[s]!, ...ends[f]!];
      for (let c = 0; c < classes; c++) {
        const t = delta[s * classes + c]!;
        if (t === -1) delta[s * classes + c] = delta[f * classes + c]!;
        else {
          fail[t] = delta[f * classes + c]!;
          queue.push(t);
        }
      }
    }
    this.delta = delta;
    this.outStart = new Int32Array(states + 1);
    let total = 0;
    for (let s = 0; s < states; s++) {
      this.outStart[s] = total;
      total += ends[s]!.length;
    }
    this.outStart[states] = total;
    this.outIds = new Int32Array(total);
    for (let s = 0; s < states; s++) this.outIds.set(ends[s]!, this.outStart[s]!);
  }

  /**
   * The ids of the needles occurring in `text` written into `into` (from 0), with repeats (an id
   * is written at each occurrence); answers how many were written. `into` grows when needed: pass
   * the same array every time so a scan allocates nothing.
   */
  scanInto(text: string, into: number[]): number {
    const { classOf, classes, delta, outStart, outIds } = this;
    let s = 0;
    let n = 0;
    for (let i = 0; i < text.length; i++) {
      s = delta[s * classes + classOf[text.charCodeAt(i)]!]!;
      const end = outStart[s + 1]!;
      for (let k = outStart[s]!; k < end; k++) into[n++] = outIds[k]!;
    }
    return n;
  }

  /** Calls `found(id)` for each needle occurring in `text` (an id may be reported more than once). */
  scan(text: string, found: (id: number) => void): void {
    const ids: number[] = [];
    const n = this.scanInto(text, ids);
    for (let i = 0; i < n; i++) found(ids[i]!);
  }
}
