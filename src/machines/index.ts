// The one door of src/machines: profiles of other hosts, the ssh stdio bridge to their castellan, and connecting there.
export { type MachineProfile, LOCAL_NAME, MAX_MACHINES, nameProblem, targetProblem, sessionProblem } from './profile.js';
export { readProfiles, writeProfiles, updateProfiles, ProfilesFileError, MAX_FILE_BYTES } from './store.js';
export { sshArgv, remoteBridgeCommand } from './ssh-argv.js';
export { BRIDGE_PROTOCOL, SPOKEN_PROTOCOLS, BRIDGE_CAPABILITIES, parseHello, incompatibility, type Hello } from './hello.js';
export { connectMachine, type MachineClient, type ConnectOptions } from './connect.js';
export { runBridge } from './bridge.js';
export { MachineError, type MachineErrorCode } from './errors.js';
export { cleanRemote, cleanRemoteLines, cleanRemoteAnsi, cleanRemoteDeep, terminalJson } from './sanitize.js';
export { connectNamed, findMachine, machineTimeouts, openMachine, openNamed, type WhereContext } from './where.js';
export { requestThroughDrops, type ThroughDropsOptions } from './through-drops.js';
export { backoff, connectWhere, isRemote } from './cli-door.js';
export { acrossMachines, type MachineResult } from './across.js';
export { rememberPanes, lastKnown, type LastKnown } from './last-known.js';
