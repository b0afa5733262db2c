/**
 * The small part of OpenAPI 3.1 that the kit reads. Everything else in the document is kept but
 * not typed.
 */
export type JsonSchema =
  | boolean
  | ({ [keyword: string]: unknown } & {
      type?: string | string[];
      properties?: Record<string, JsonSchema>;
      required?: string[];
      items?: JsonSchema;
      $ref?: string;
    });

export interface OpenApiExample {
  summary?: string;
  value?: unknown;
}

export interface OpenApiMediaType {
  schema?: JsonSchema;
  example?: unknown;
  examples?: Record<string, OpenApiExample>;
}

export interface OpenApiHeader {
  description?: string;
  required?: boolean;
  schema?: JsonSchema;
}

export interface OpenApiResponse {
  description?: string;
  headers?: Record<string, OpenApiHeader>;
  content?: Record<string, OpenApiMediaType>;
}

export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: JsonSchema;
  style?: string;
  explode?: boolean;
}

export interface OpenApiRequestBody {
  required?: boolean;
  content?: Record<string, OpenApiMediaType>;
}

export type SecurityRequirement = Record<string, string[]>;

export interface OpenApiOperation {
  operationId?: string;
  summary?: string;
  deprecated?: boolean;
  parameters?: OpenApiParameter[];
  requestBody?: OpenApiRequestBody;
  responses?: Record<string, OpenApiResponse>;
  security?: SecurityRequirement[];
  'x-stability'?: string;
  'x-deprecation'?: { deprecatedAt?: string; sunset?: string; placeholder?: boolean };
  [extension: `x-${string}`]: unknown;
}

export const httpMethods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof httpMethods)[number];

export type OpenApiPathItem = Partial<Record<HttpMethod, OpenApiOperation>> & {
  parameters?: OpenApiParameter[];
};

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; [key: string]: unknown };
  servers?: { url: string; description?: string; variables?: Record<string, { default: string }> }[];
  security?: SecurityRequirement[];
  paths?: Record<string, OpenApiPathItem>;
  components?: {
    schemas?: Record<string, JsonSchema>;
    securitySchemes?: Record<string, { type: string; scheme?: string; [key: string]: unknown }>;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}
