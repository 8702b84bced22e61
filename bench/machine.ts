import { cpus, loadavg, release, totalmem, type } from 'node:os';

export interface MachineInfo {
  cpu: string;
  cores: number;
  memoryGb: number;
  os: string;
  node: string;
  /** 1-minute load average before the first run and after the last: other work on the machine skews results. */
  load1: { start: number; end: number };
}

export const load1 = () => Math.round(loadavg()[0] * 100) / 100;

export function machineInfo(load1AtStart: number): MachineInfo {
  const c = cpus();
  return {
    cpu: c[0]?.model.replace(/\s+/g, ' ').trim() ?? 'unknown',
    cores: c.length,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    os: `${type()} ${release()}`,
    node: process.version,
    load1: { start: load1AtStart, end: load1() },
  };
}
