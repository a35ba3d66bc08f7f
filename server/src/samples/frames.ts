// Turns the frames perf printed into the profile's distinct, symbolized frames. Frames
// of binaries on this machine are looked up in their own debug information
// (server/src/symbols), innermost inlined function first; perf's `srcline` is used only
// when the binary cannot be read, and `symbol+0x1a` when there is no line information.

import { SampleFrame } from '../model/profile';
import { ElfImage, SymbolError, Symbolized, symbolCache } from '../symbols';
import { AddressKind, MmapTable, toFileOffset } from './addresses';

/** One callchain entry as perf printed it. */
export interface PerfFrame {
  ip: number;
  symbol: string;
  /** The `+0x1a` after the symbol. */
  offset?: number;
  /** Path or pseudo-name (`[kernel.kallsyms]`, `[unknown]`); absent on `(inlined)` frames. */
  dso?: string;
  inlined: boolean;
  /** perf's own `file:line` (two-space line after the frame), when printed. */
  srcline?: string;
}

/** A place where symbolization went wrong, reported once per binary. */
export interface FrameWarning {
  dso: string;
  message: string;
}

const USER_LIMIT = Number.MAX_SAFE_INTEGER;

/** Libraries of the system, which normally come without line information. */
function isSystemPath(path: string): boolean {
  return /^\/(usr\/)?(lib|lib64|libexec)\//.test(path);
}

function isBinaryPath(dso: string | undefined): dso is string {
  return dso !== undefined && dso.startsWith('/');
}

/** perf's srcline `file:line`; `??:0`, `demo[1070]` and `[kernel.kallsyms][…]` carry no line. */
function parseSrcline(srcline: string | undefined): { file: string; line: number } | undefined {
  if (!srcline) return undefined;
  const colon = srcline.lastIndexOf(':');
  if (colon <= 0) return undefined;
  const line = Number(srcline.slice(colon + 1));
  if (!Number.isInteger(line) || line <= 0) return undefined;
  return { file: srcline.slice(0, colon), line };
}

function withOffset(symbol: string, offset: number | undefined): string {
  return offset === undefined ? symbol : `${symbol}+0x${offset.toString(16)}`;
}

export interface FrameResolverOptions {
  mmaps: MmapTable;
  /** What callchain addresses are (by perf version). */
  addressKind: () => AddressKind;
  /** Build ids recorded with the profile (`perf buildid-list`), by binary path. */
  buildIds?: Map<string, string>;
}

interface Resolved {
  ids: number[];
  /** Whether the ids include the debug information's inline chain (perf's `(inlined)` frames are then dropped). */
  expandsInlines: boolean;
}

export class FrameResolver {
  readonly frames: SampleFrame[] = [];
  readonly warnings: FrameWarning[] = [];
  private readonly frameIds = new Map<string, number>();
  /** Per frame object (the importer hands over one object per distinct frame line): results by slot. */
  private readonly resolved = new WeakMap<PerfFrame, { pid: number | undefined; bySlot: (Resolved | undefined)[] }>();
  private readonly images = symbolCache();
  private readonly usable = new Map<string, ElfImage | undefined>();

  constructor(private readonly options: FrameResolverOptions) {}

  /**
   * The frame ids of a callchain, innermost first. `leafIsRuntime` is set for the ip
   * printed on a sample's own line (always a runtime address).
   */
  resolveChain(chain: readonly PerfFrame[], pid: number | undefined, leafIsRuntime = false): number[] {
    const ids: number[] = [];
    let pendingInline = 0;
    for (let i = 0; i < chain.length; i++) {
      const frame = chain[i];
      if (frame.inlined) {
        pendingInline++;
        continue;
      }
      const resolved = this.resolveFrame(frame, pid, i > 0, leafIsRuntime && i === 0);
      // perf's `(inlined)` frames at the same ip are replaced by the debug information's
      // own inline chain when the binary could be read; otherwise kept as printed.
      const start = i - pendingInline;
      for (let k = start; k < i; k++) {
        if (resolved.expandsInlines && chain[k].ip === frame.ip) continue;
        ids.push(this.nameOnly(chain[k]));
      }
      pendingInline = 0;
      ids.push(...resolved.ids);
    }
    for (let k = chain.length - pendingInline; k < chain.length; k++) ids.push(this.nameOnly(chain[k]));
    return ids;
  }

  private nameOnly(frame: PerfFrame): number {
    const line = parseSrcline(frame.srcline);
    return this.intern({ function: frame.symbol, dso: frame.dso, file: line?.file, line: line?.line, inlined: frame.inlined || undefined });
  }

  private resolveFrame(frame: PerfFrame, pid: number | undefined, nonLeaf: boolean, runtime: boolean): Resolved {
    const slot = (nonLeaf ? 1 : 0) + (runtime ? 2 : 0);
    let entry = this.resolved.get(frame);
    if (!entry || entry.pid !== pid) this.resolved.set(frame, (entry = { pid, bySlot: [] }));
    return (entry.bySlot[slot] ??= this.lookUp(frame, pid, nonLeaf, runtime));
  }

  private lookUp(frame: PerfFrame, pid: number | undefined, nonLeaf: boolean, runtime: boolean): Resolved {
    // Kernel addresses do not fit a double exactly: their frames are known by name only.
    const image = isBinaryPath(frame.dso) && frame.ip < USER_LIMIT ? this.image(frame.dso) : undefined;
    if (!image) return { ids: [this.nameOnly(frame)], expandsInlines: false };
    const kind = runtime ? 'runtime' : this.options.addressKind();
    const offset = toFileOffset(this.options.mmaps, frame.dso!, frame.ip, pid, kind);
    const vaddr = offset === undefined ? undefined : image.fileOffsetToVaddr(offset);
    if (vaddr === undefined) return { ids: [this.nameOnly(frame)], expandsInlines: false };
    // Caller frames hold return addresses: the call is the instruction before.
    const symbolized = image.symbolize(nonLeaf ? vaddr - 1 : vaddr);
    if (!symbolized.line) {
      // perf's own srcline, when printed, knows lines our copy of the binary lacks.
      if (parseSrcline(frame.srcline)) return { ids: [this.nameOnly(frame)], expandsInlines: false };
      const name = withOffset(symbolized.function ?? frame.symbol, symbolized.function ? symbolized.functionOffset : frame.offset);
      return { ids: [this.intern({ function: name, dso: frame.dso })], expandsInlines: false };
    }
    return { ids: this.expand(symbolized, frame), expandsInlines: true };
  }

  /** The line's own frame, then one frame per inlined call site, outermost last. */
  private expand(symbolized: Symbolized, frame: PerfFrame): number[] {
    const outer = symbolized.function ?? frame.symbol;
    const inlined = symbolized.inlined ?? [];
    const ids: number[] = [];
    let place = symbolized.line!;
    for (const level of inlined) {
      ids.push(this.intern({ function: level.function, dso: frame.dso, file: place.file, line: place.line, inlined: true }));
      place = level.callSite;
    }
    ids.push(this.intern({ function: outer, dso: frame.dso, file: place.file, line: place.line }));
    return ids;
  }

  private image(path: string): ElfImage | undefined {
    if (this.usable.has(path)) return this.usable.get(path);
    const image = this.images.get(path);
    let usable: ElfImage | undefined;
    if (image instanceof SymbolError) {
      this.warnings.push({ dso: path, message: `cannot read ${path} for line information (${image.message}); its frames show perf's symbol names` });
    } else {
      const recorded = this.options.buildIds?.get(path);
      if (recorded && image.buildId && recorded.toLowerCase() !== image.buildId.toLowerCase()) {
        this.warnings.push({
          dso: path,
          message: `${path} is not the binary that was recorded (build id ${image.buildId}, recorded ${recorded}); its frames are not mapped to lines`,
        });
      } else {
        if (!image.hasDebugLine && !isSystemPath(path)) this.warnings.push({ dso: path, message: `${path} has no line information (stripped?); its frames show function+offset` });
        usable = image;
      }
    }
    this.usable.set(path, usable);
    return usable;
  }

  private intern(frame: SampleFrame): number {
    const key = `${frame.function}\0${frame.dso ?? ''}\0${frame.file ?? ''}\0${frame.line ?? 0}\0${frame.inlined ? 1 : 0}`;
    let id = this.frameIds.get(key);
    if (id === undefined) {
      id = this.frames.length;
      this.frames.push(frame);
      this.frameIds.set(key, id);
    }
    return id;
  }
}
