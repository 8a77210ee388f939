/** Russian (see en.ts for the keys and the syntax). */
export default {
  app: {
    common: {
      cancel: "Отмена",
      save: "Сохранить",
      loading: "Загрузка…",
    },
    settings: {
      language: "Язык",
    },
  },
  server: {},
};
