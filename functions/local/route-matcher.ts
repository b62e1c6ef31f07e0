/** Finds the API route for a request the way API Gateway matches resources: by method and path template. */
import type { Route } from '#handlers/api/routes';

export interface RouteMatch {
  route: Route;
  /** Values of the `{param}` segments, URL-decoded; null when the template has none, as in API Gateway events. */
  pathParameters: Record<string, string> | null;
}

/** Returns the route matching `method` and `path` (no query string), or undefined. */
export function matchRoute(routes: readonly Route[], method: string, path: string): RouteMatch | undefined {
  const segments = splitPath(path);
  for (const route of routes) {
    if (route.method !== method.toUpperCase()) continue;
    const pathParameters = matchTemplate(splitPath(route.path), segments);
    if (pathParameters !== undefined) {
      return { route, pathParameters: Object.keys(pathParameters).length > 0 ? pathParameters : null };
    }
  }
  return undefined;
}

function splitPath(path: string): string[] {
  return path.split('/').filter((segment) => segment !== '');
}

function matchTemplate(template: string[], segments: string[]): Record<string, string> | undefined {
  const parameters: Record<string, string> = {};
  for (let i = 0; i < template.length; i++) {
    const part = template[i] as string;
    const greedy = /^\{(.+)\+\}$/.exec(part);
    if (greedy?.[1] && i === template.length - 1 && segments.length > i) {
      parameters[greedy[1]] = segments.slice(i).map(safeDecode).join('/');
      return parameters;
    }
    const segment = segments[i];
    if (segment === undefined) return undefined;
    const name = /^\{(.+)\}$/.exec(part)?.[1];
    if (name) parameters[name] = safeDecode(segment);
    else if (part !== segment) return undefined;
  }
  return template.length === segments.length ? parameters : undefined;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
