/**
 * Common Portuguese words that ranking and query expansion leave out: articles,
 * prepositions and their contractions, pronouns, conjunctions and the commonest
 * forms of "ser", "estar" and "ter". They are written without accents, as text
 * is compared after accents are removed (`não` → `nao`), and in lower case.
 * The English list is `STOPWORDS` in `stopwords.ts`; a locale picks one.
 *
 * @example
 * ```ts
 * import { STOPWORDS_PT } from "./stopwords_pt.ts";
 * console.assert(STOPWORDS_PT.has("de") && STOPWORDS_PT.has("nao") && STOPWORDS_PT.has("pela"));
 * console.assert(!STOPWORDS_PT.has("populacao"));
 * ```
 *
 * @module
 */

/** The Portuguese stop-words (lower case, without accents). */
export const STOPWORDS_PT: ReadonlySet<string> = new Set(
  ("a o as os um uma uns umas de da do das dos em na no nas nos num numa nuns numas ao aos " +
    "pelo pela pelos pelas por para pra com sem sob sobre entre ate apos desde contra " +
    "perante e ou mas nem que se como quando onde porque pois porem contudo todavia entao " +
    "ja mais menos muito muita muitos muitas pouco pouca tao tambem so apenas ainda nao sim " +
    "eu tu ele ela nos vos eles elas me te lhe lhes mim ti si meu minha meus minhas teu tua " +
    "teus tuas seu sua seus suas nosso nossa nossos nossas dele dela deles delas isso isto " +
    "aquilo esse essa esses essas este esta estes estas aquele aquela aqueles aquelas desse " +
    "dessa deste desta naquele naquela nesse nessa neste nesta qual quais quem cujo cuja " +
    "outro outra outros outras mesmo mesma mesmos mesmas todo toda todos todas cada " +
    "e eh foi foram era eram ser sido sendo esta estao estava estavam estar tem tinha " +
    "ter ha havia seja sejam sera serao fosse").split(" "),
);
