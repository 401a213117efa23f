/**
 * Which of many literals occur in a text, in one pass (Aho–Corasick over UTF-16 code units).
 * The compiled rules' pre-filter literals ("needles") of every rule of a logsource go into one
 * index, so an event's lower-cased haystack is scanned once instead of once per rule and
 * literal (with 1,000 rules that was most of the matching time: docs/performance.md).
 */
export class NeedleIndex {
  /** goto[state] maps a code unit to the next state. */
  private readonly next: Array<Map<number, number>> = [new Map()];
  private readonly fail: number[] = [0];
  /** Needle ids ending at a state, its failure chain's included. */
  private readonly out: number[][] = [[]];

  constructor(needles: readonly string[]) {
    needles.forEach((needle, id) => {
      let s = 0;
      for (let i = 0; i < needle.length; i++) {
        const c = needle.charCodeAt(i);
        let t = this.next[s]!.get(c);
        if (t === undefined) {
          t = this.next.length;
          this.next.push(new Map());
          this.fail.push(0);
          this.out.push([]);
          this.next[s]!.set(c, t);
        }
        s = t;
      }
      this.out[s]!.push(id);
    });
    // Breadth first: a state's failure link is the longest proper suffix that is also a prefix.
    const queue: number[] = [...this.next[0]!.values()];
    for (let q = 0; q < queue.length; q++) {
      const s = queue[q]!;
      for (const [c, t] of this.next[s]!) {
        let f = this.fail[s]!;
        while (f !== 0 && !this.next[f]!.has(c)) f = this.fail[f]!;
        const g = this.next[f]!.get(c);
        this.fail[t] = g !== undefined && g !== t ? g : 0;
        if (this.out[this.fail[t]!]!.length) this.out[t] = [...this.out[t]!, ...this.out[this.fail[t]!]!];
        queue.push(t);
      }
    }
  }

  /** Calls `found(id)` for each needle occurring in `text` (an id may be reported more than once). */
  scan(text: string, found: (id: number) => void): void {
    let s = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      let t = this.next[s]!.get(c);
      while (t === undefined && s !== 0) {
        s = this.fail[s]!;
        t = this.next[s]!.get(c);
      }
      s = t ?? 0;
      const o = this.out[s]!;
      for (let k = 0; k < o.length; k++) found(o[k]!);
    }
  }
}
