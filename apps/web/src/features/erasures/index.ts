export { getErasuresQueryOptions, useErase, useErasures } from './api/erasures.ts';
export { ForgetPersonPanel } from './components/forget-person-panel.tsx';
