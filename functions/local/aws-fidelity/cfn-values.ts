/**
 * Resolves CloudFormation values (Ref, Fn::GetAtt, Fn::Join, Fn::Sub, Fn::ImportValue, Fn::Select)
 * to strings, given what each reference stands for. Pure: the policy table supplies the local
 * names and ARNs. A value that names something unknown resolves to undefined, never to a guess.
 */

export interface CfnResource {
  Type: string;
  Properties?: Record<string, unknown>;
}

export interface CfnTemplate {
  Resources: Record<string, CfnResource>;
  Outputs?: Record<string, { Value: unknown; Export?: { Name: unknown } }>;
}

/** What the references of one template stand for; undefined where unknown. */
export interface CfnScope {
  /** `Ref` of a logical id or a pseudo parameter (`AWS::Region`...). */
  ref(name: string): string | undefined;
  getAtt(logicalId: string, attribute: string): string | undefined;
  importValue(exportName: string): string | undefined;
}

/** The string `value` stands for in `scope`, or undefined if any part of it is unknown. */
export function resolveCfnValue(value: unknown, scope: CfnScope): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const entries = Object.entries(value);
  if (entries.length !== 1) return undefined;
  const [[fn, args]] = entries as [[string, unknown]];
  switch (fn) {
    case 'Ref':
      return typeof args === 'string' ? scope.ref(args) : undefined;
    case 'Fn::GetAtt': {
      const [id, ...attribute] = typeof args === 'string' ? args.split('.') : Array.isArray(args) ? args : [];
      return typeof id === 'string' && attribute.length > 0 ? scope.getAtt(id, attribute.join('.')) : undefined;
    }
    case 'Fn::ImportValue': {
      const name = resolveCfnValue(args, scope);
      return name === undefined ? undefined : scope.importValue(name);
    }
    case 'Fn::Join':
      return join(args, scope);
    case 'Fn::Sub':
      return substitute(args, scope);
    case 'Fn::Select': {
      if (!Array.isArray(args) || args.length !== 2 || !Array.isArray(args[1])) return undefined;
      const index = Number(resolveCfnValue(args[0], scope));
      return Number.isInteger(index) ? resolveCfnValue(args[1][index], scope) : undefined;
    }
    default:
      return undefined;
  }
}

function join(args: unknown, scope: CfnScope): string | undefined {
  if (!Array.isArray(args) || args.length !== 2 || typeof args[0] !== 'string' || !Array.isArray(args[1]))
    return undefined;
  const parts = (args[1] as unknown[]).map((part) => resolveCfnValue(part, scope));
  return parts.every((part) => part !== undefined) ? parts.join(args[0]) : undefined;
}

/** `${Name}` and `${Name.Attribute}` from the variables given, else from the scope; `${!x}` is literal. */
function substitute(args: unknown, scope: CfnScope): string | undefined {
  const [text, variables = {}] = typeof args === 'string' ? [args, {}] : Array.isArray(args) ? args : [];
  if (typeof text !== 'string' || typeof variables !== 'object' || variables === null) return undefined;
  let unknown = false;
  const result = text.replace(/\$\{(!?)([^}]*)\}/g, (_, literal: string, name: string) => {
    if (literal) return `\${${name}}`;
    const given = (variables as Record<string, unknown>)[name];
    const [id, ...attribute] = name.split('.');
    const resolved =
      given !== undefined
        ? resolveCfnValue(given, scope)
        : attribute.length > 0
          ? scope.getAtt(id as string, attribute.join('.'))
          : scope.ref(name);
    if (resolved === undefined) unknown = true;
    return resolved ?? '';
  });
  return unknown ? undefined : result;
}
