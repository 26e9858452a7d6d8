// The part of the qrcode package (npm, no types of its own) that the share dialog uses,
// mapped in by jsconfig.json's paths: its @types package pulls in Node's types, which retype
// the page's timers, and checking its own JavaScript fails under strict.
export interface QRCodeOptions {
  errorCorrectionLevel?: 'L' | 'M' | 'Q' | 'H';
  margin?: number;
  scale?: number;
  width?: number;
}
export interface QRCode {
  modules: { size: number; data: Uint8Array };
  version: number;
}
export function create(text: string, options?: QRCodeOptions): QRCode;
export function toCanvas(canvas: HTMLCanvasElement, text: string, options?: QRCodeOptions): Promise<void>;
declare const _default: { create: typeof create; toCanvas: typeof toCanvas };
export default _default;
