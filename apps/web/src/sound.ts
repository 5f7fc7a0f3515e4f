import { useSyncExternalStore } from 'react';
import type { SoundKind } from './feel';

/**
 * The table's sounds, synthesized with WebAudio (no sound files). Browsers let a page make sound
 * only after a user gesture, so the audio context is made on the first pointer or key press; until
 * then nothing sounds. The mute switch is kept in localStorage (`dominoes.sound`). Every sound
 * actually started is counted on `<html data-sounds>` (the browser test reads it).
 */

const KEY = 'dominoes.sound';
const listeners = new Set<() => void>();
let muted = readMuted();
let context: AudioContext | null = null;
let played = 0;

function readMuted(): boolean {
  try {
    return localStorage.getItem(KEY) === 'off';
  } catch {
    return false;
  }
}

export function isMuted(): boolean {
  return muted;
}

export function setMuted(value: boolean): void {
  muted = value;
  try {
    localStorage.setItem(KEY, value ? 'off' : 'on');
  } catch {
    // storage unavailable: the choice lasts for this page
  }
  for (const listener of listeners) listener();
}

export function useMuted(): boolean {
  return useSyncExternalStore((listener) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  }, isMuted);
}

/** Called on the first user gesture: from then on the page may sound. */
function unlock(): void {
  if (!context) {
    const Ctor =
      window.AudioContext ??
      (window as unknown as { webkitAudioContext?: typeof AudioContext }).webkitAudioContext;
    if (!Ctor) return;
    context = new Ctor();
  }
  if (context.state === 'suspended') void context.resume();
}

if (typeof window !== 'undefined') {
  for (const type of ['pointerdown', 'keydown', 'touchstart'] as const)
    window.addEventListener(type, unlock, { capture: true, passive: true });
}

/** Notes of each sound: [frequency Hz, start s, length s, wave]. */
const NOTES: Record<SoundKind, readonly (readonly [number, number, number, OscillatorType])[]> = {
  // A short wooden click.
  place: [
    [220, 0, 0.07, 'triangle'],
    [140, 0.01, 0.06, 'square'],
  ],
  // Two rising notes.
  turn: [
    [660, 0, 0.12, 'sine'],
    [880, 0.13, 0.16, 'sine'],
  ],
  // A soft falling note.
  pass: [[392, 0, 0.18, 'sine']],
  // A small chord.
  round: [
    [523, 0, 0.35, 'sine'],
    [659, 0.08, 0.35, 'sine'],
    [784, 0.16, 0.45, 'sine'],
  ],
};

export function playSound(kind: SoundKind): void {
  if (muted || !context || context.state !== 'running') return;
  const now = context.currentTime;
  for (const [frequency, start, length, wave] of NOTES[kind]) {
    const osc = context.createOscillator();
    const gain = context.createGain();
    osc.type = wave;
    osc.frequency.setValueAtTime(frequency, now + start);
    if (kind === 'pass') osc.frequency.exponentialRampToValueAtTime(frequency * 0.75, now + start + length);
    gain.gain.setValueAtTime(0.0001, now + start);
    gain.gain.exponentialRampToValueAtTime(kind === 'place' ? 0.25 : 0.15, now + start + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
    osc.connect(gain).connect(context.destination);
    osc.start(now + start);
    osc.stop(now + start + length + 0.02);
  }
  played += 1;
  document.documentElement.dataset.sounds = String(played);
  document.documentElement.dataset.lastSound = kind;
}
