/** ioredis's own slot function (CRC16 of the key's hash tag, mod 16384): the slot Redis Cluster routes a key to. */
declare module 'cluster-key-slot' {
  export default function calculateSlot(key: string): number;
}
