import * as z from 'zod';
import { provideZodModule } from '../spec/zod-module.js';

// What a page gets for `petstore-kit/mocks` (the package's `browser` condition) and what
// `petstore-kit/mocks/browser` builds on. Node loads zod when a schema is first used; a page cannot,
// so this entry hands over its own as it loads.
provideZodModule(z);

export * from './handlers.js';
