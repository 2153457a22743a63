/**
 * The GraphQL fields whose values are credentials, and the check that keeps them from requests the dashboard
 * relays for a browser (server/http/relayed.ts). The check reads the parsed document against the schema, so
 * however a selection is written (aliases, named or inline fragments, directives driven by variables, several
 * operations in one document) each selected field is seen with the type it belongs to.
 */
import { isAbstractType, TypeInfo, visit, visitWithTypeInfo, type DocumentNode, type GraphQLSchema } from 'graphql';

/** Type → its fields that hold a credential. KeyPair.id is the access key. */
export const SECRET_FIELDS: Record<string, readonly string[]> = {
  KeyPair: ['id', 'access_key', 'secret_key'],
  User: ['main_access_key'],
  ComputeSession: ['access_key'],
  ContainerRegistry: ['password'],
  ContainerRegistryConfig: ['password'],
  ScalingGroup: ['wsproxy_api_token'],
  EndpointToken: ['token'],
};

function isSecret(schema: GraphQLSchema, typeName: string, field: string): boolean {
  if (SECRET_FIELDS[typeName]?.includes(field)) return true;
  const type = schema.getType(typeName);
  // A field asked of an interface or union is secret when it is on any type that can stand there.
  return Boolean(type && isAbstractType(type) && schema.getPossibleTypes(type).some((t) => SECRET_FIELDS[t.name]?.includes(field)));
}

/** `Type.field` for each secret field the document selects anywhere (every operation and fragment). */
export function selectedSecrets(schema: GraphQLSchema, document: DocumentNode): string[] {
  const found = new Set<string>();
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        const parent = typeInfo.getParentType();
        if (parent && isSecret(schema, parent.name, node.name.value)) found.add(`${parent.name}.${node.name.value}`);
      },
    }),
  );
  return [...found];
}
