// Why a file given by the user could not be read, in words rather than Node's error codes.

export function readErrorReason(error: unknown): string {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'ENOENT':
      return 'no such file';
    case 'EISDIR':
      return 'it is a directory';
    case 'ENOTDIR':
      return 'a part of its path is not a directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    default:
      return (error as Error).message;
  }
}
