/**
 * Initial data for an island comes from Django's `json_script` filter:
 *
 *   {{ props|json_script:"stampcard-props" }}
 *
 * `readJsonScript<StampCardProps>("stampcard-props")` returns the parsed value. The type is
 * a promise the view makes (build the props with explicit keys there); it is not checked.
 */
export class IslandDataError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "IslandDataError";
  }
}

export function readJsonScript<T>(id: string): T {
  const element = document.getElementById(id);
  if (element === null) {
    throw new IslandDataError(
      `readJsonScript: no element with id "${id}". Render it with {{ value|json_script:"${id}" }}.`,
    );
  }
  const text = element.textContent;
  if (text === null || text.trim() === "") {
    throw new IslandDataError(`readJsonScript: element #${id} is empty.`);
  }
  try {
    return JSON.parse(text) as T;
  } catch (cause) {
    throw new IslandDataError(`readJsonScript: element #${id} does not contain valid JSON.`, {
      cause,
    });
  }
}
