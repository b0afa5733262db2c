import {
  array,
  boolean,
  enum as enumOf,
  int,
  literal,
  looseObject,
  number,
  object,
  record,
  strictObject,
  string,
  union,
  unknown,
  url,
} from 'zod';
import { provideZodModule } from './zod-module.js';

// Imported by the entries a page loads (mocks/handlers-browser.ts, the lab): a page cannot load zod when a
// schema is first used, as Node does, so it is handed over now. By name, not the whole namespace, so a
// bundler keeps only what these need (the namespace, with every locale, was 72 kB gzip more).
provideZodModule({
  array,
  boolean,
  enum: enumOf,
  int,
  literal,
  looseObject,
  number,
  object,
  record,
  strictObject,
  string,
  union,
  unknown,
  url,
});
