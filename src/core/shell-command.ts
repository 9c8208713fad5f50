// A pane command given as one string with shell syntax runs through `sh -c`, as tmux runs one-argument commands.

/** Characters that mean the string is a shell line, not a program name: spaces, quotes, operators, expansions. */
const SHELL_SYNTAX = /[\s'"`$&|;<>(){}*?[\]~\\#=!]/;

/**
 * `['echo a && echo b']` becomes `['sh', '-c', 'echo a && echo b']`; a bare program (`['htop']`) and an argv
 * of several words are run as given, so identification still sees the program itself. The user's own shell is
 * never wrapped, even when its path has a space in it.
 */
export function shellCommand(command: string[], userShell: string[] = []): string[] {
  if (command.length === 1 && command[0] === userShell[0] && userShell.length === 1) return command;
  if (command.length === 1 && SHELL_SYNTAX.test(command[0])) return ['/bin/sh', '-c', command[0]];
  return command;
}
