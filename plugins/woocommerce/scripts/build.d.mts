export declare const PLUGIN_DIR: string;
export declare const CLIENT_NAMESPACE: string;
export declare const CLIENT_DIR: string;
export declare function copyClient(options?: { dest?: string; clean?: boolean }): Promise<string[]>;
export declare function buildScripts(): void;
