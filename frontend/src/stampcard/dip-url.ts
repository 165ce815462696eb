/** An endpoint template with 0 in place of the dip id ("/challenge/plons/0/ongedaan"). */
export function dipUrl(template: string, dipId: number): string {
  return template.replace(/\/0(?=\/|$)/, `/${dipId}`);
}
