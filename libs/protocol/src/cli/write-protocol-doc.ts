import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { renderProtocolDoc } from '../protocol-doc';

const target = resolve(__dirname, '../../../../docs/protocol.md');
writeFileSync(target, renderProtocolDoc());
console.log(`wrote ${target}`);
