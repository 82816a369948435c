import { afterAll } from 'vitest';
import { runAfterFile } from './cleanups.ts';

// Runs before each test file (Vitest re-runs setup files per file, isolated or not), so this hook
// belongs to each file's root suite.
afterAll(runAfterFile);
