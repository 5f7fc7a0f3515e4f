import { stopPostgresServers } from './postgres-servers.global';

export default stopPostgresServers;
