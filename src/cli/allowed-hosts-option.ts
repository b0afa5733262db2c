/** `--allowed-hosts a,b --allowed-hosts c` adds to the config's list; `all` anywhere switches the check off. */
export function allowedHostsOption(flags: string[], fromConfig: 'all' | string[] | undefined): 'all' | string[] {
  const names = flags
    .flatMap((flag) => flag.split(','))
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (fromConfig === 'all' || names.includes('all')) return 'all';
  return [...(fromConfig ?? []), ...names];
}
