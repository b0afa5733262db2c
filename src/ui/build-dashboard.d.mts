/** Types of build-dashboard.mjs (plain JS so Node runs it without a TypeScript loader). */
export declare const generatedPath: string;
export declare function cspHash(text: string): string;
export declare function buildDashboardPage(): Promise<{ html: string; scriptHash: string; styleHash: string; module: string }>;
