/** Whether a process still runs, for lock files and other records of which process owns what. */

/** True while process `pid` exists (one owned by another user counts: signalling it is only refused). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
